package renderproc

import (
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
)

// smallSheet is a 240 × 320 mm sheet of 2 × 2 slots of 110 × 150 mm.
func smallSheet() *renderv1.SheetTemplate {
	return &renderv1.SheetTemplate{Name: "4 cards", SheetWidth: 240, SheetHeight: 320, MarginTop: 5, MarginRight: 5,
		MarginBottom: 5, MarginLeft: 5, Gap: 4, GridColumns: 2, GridRows: 2, GridSlotWidth: 110, GridSlotHeight: 150, CropMarks: true}
}

func sheetsRequest(job *renderv1.SheetsJob) *renderv1.RenderRequest {
	return &renderv1.RenderRequest{Formats: []renderv1.Format{renderv1.Format_FORMAT_PDF}, Sheets: job}
}

// TestSheets: a sheets job lays every copy of every surface out, one PDF a
// page per sheet; what it cannot lay out names the batch's item.
func TestSheets(t *testing.T) {
	c := client(t, Options{})
	card := []byte(`{"width":90,"height":130,"bleed":2,"layers":[{"type":"rect","x":0,"y":0,"width":90,"height":130,"fill":"#ff0000"}]}`)
	job := &renderv1.SheetsJob{BatchUid: "b-1", Template: smallSheet(), Documents: [][]byte{card, twoSurfaces(t)},
		Items: []*renderv1.SheetItem{{Document: 0, Copies: 3, Label: "1001 / 1", BatchIndex: 0}, {Document: 1, Copies: 2, Label: "1001 / 2", BatchIndex: 1}}}
	resp := call(t, c, sheetsRequest(job))
	if len(resp.Files) != 1 || resp.Files[0].PageCount != 2 || resp.Files[0].ContentType != "application/pdf" {
		t.Fatalf("files %v", resp.Files)
	}
	// 3 cards and 2 × 2 surfaces on 4 slots a sheet: 2 pages of 240 × 320 mm.
	boxes := pdfBoxes(t, resp.Files[0].Data)
	if !near(boxes["Page 2 MediaBox"], []float64{0, 0, 680.31, 907.09}) || boxes["Page 3 MediaBox"] != nil {
		t.Errorf("boxes %v", boxes)
	}

	edit := func(change func(*renderv1.SheetsJob)) *renderv1.RenderRequest {
		j := proto.Clone(job).(*renderv1.SheetsJob)
		change(j)
		return sheetsRequest(j)
	}
	for _, tc := range []struct {
		name string
		req  *renderv1.RenderRequest
		msg  string
	}{
		{"PNG", &renderv1.RenderRequest{Formats: []renderv1.Format{renderv1.Format_FORMAT_PNG}, Sheets: job}, "formats: a sheets job renders FORMAT_PDF only"},
		{"no items", edit(func(j *renderv1.SheetsJob) { j.Items = nil }), "sheets.items: at least one is required"},
		{"a document out of range", edit(func(j *renderv1.SheetsJob) { j.Items[1].Document = 2 }), "sheets.items[1].document: no document 2"},
		{"a document that is not one", edit(func(j *renderv1.SheetsJob) { j.Documents[1] = []byte("{"); j.Items[1].BatchIndex = 7 }), "order_items[7]: template_config: "},
		{"no copies", edit(func(j *renderv1.SheetsJob) { j.Items[0].Copies = 0 }), "order_items[0]: copies must be 1 or more"},
		{"too many copies", edit(func(j *renderv1.SheetsJob) { j.Items[0].Copies = MaxSheetCopies }), "at most 10000 copies in all"},
		{"an item too large", edit(func(j *renderv1.SheetsJob) {
			j.Documents[0] = []byte(`{"width":150,"height":150,"layers":[]}`)
			j.Items[0].BatchIndex = 4
		}), "order_items[4]: its trim of 150 × 150 mm fits no slot"},
		{"a template that breaks its rules", edit(func(j *renderv1.SheetsJob) { j.Template.GridColumns = 3 }), "sheets.template: "},
		{"an image that is not one", edit(func(j *renderv1.SheetsJob) {
			j.Documents[0] = withImage("data:image/png;base64,aGVsbG8=")
			j.Items[0].BatchIndex = 2
		}), "order_items[2]: layers[0]: image data:image/png;base64,aGVsbG8=: is not a PNG"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := expect(t, c, tc.req, codes.InvalidArgument, tc.msg)
			if !strings.Contains(st.Message(), tc.msg) {
				t.Errorf("message %q", st.Message())
			}
		})
	}
}
