package impose

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/iccprofile"
	"github.com/platen-print/platen/internal/pdfxtest"
	"github.com/platen-print/platen/internal/poppler"
	"github.com/platen-print/platen/internal/render"
	"github.com/platen-print/platen/internal/templates"
)

// photos serves one JPEG, counting nothing: the PDF tells how often it is
// embedded.
type photos map[string]*render.Image

func (p photos) Image(_ context.Context, src string) (*render.Image, error) {
	if img, ok := p[src]; ok {
		return img, nil
	}
	return nil, fmt.Errorf("%s: 404", src)
}

// sheet is an SRA3 sheet, 2 × 4 slots of 144 × 100 mm, 8 mm apart,
// 10 mm margins, 2 mm of bleed kept, crop marks.
func sheet() *templates.Template {
	return &templates.Template{Name: "SRA3 cards", SheetWidth: 320, SheetHeight: 450, MarginTop: 10, MarginRight: 10,
		MarginBottom: 10, MarginLeft: 10, Gap: 8, SlotBleed: 2, CropMarks: true,
		Grid: &templates.Grid{Columns: 2, Rows: 4, SlotWidth: 144, SlotHeight: 100}}
}

// card is a w × h mm design with 3 mm of bleed, all red, with a line of
// text, and a photo when photo is set.
func card(t *testing.T, w, h float64, photo string) *designdoc.Document {
	t.Helper()
	layers := fmt.Sprintf(`{"type":"rect","x":-3,"y":-3,"width":%v,"height":%v,"fill":"#ff0000"},{"type":"text","text":"Card","size":10,"x":5,"y":5,"width":50}`, w+6, h+6)
	if photo != "" {
		layers += fmt.Sprintf(`,{"type":"image","src":%q,"x":5,"y":20,"width":40,"height":30}`, photo)
	}
	doc, err := designdoc.Parse([]byte(fmt.Sprintf(`{"width":%v,"height":%v,"bleed":3,"layers":[%s]}`, w, h, layers)))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// impose plans and renders a batch into a PDF file and returns its path.
func impose(t *testing.T, b Batch, images photos) (string, []render.Sheet) {
	t.Helper()
	sheets, err := Plan(b)
	if err != nil {
		t.Fatal(err)
	}
	pdf, err := render.New(images, render.NewFonts(nil)).Sheets(context.Background(), render.Settings{Title: "Batch " + b.UID}, b.Template.SheetWidth, b.Template.SheetHeight, sheets)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "batch.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, sheets
}

// pixel is the colour at (x, y) mm of page 1, rasterised at dpi.
func pixel(t *testing.T, pdf string, dpi int, x, y float64) color.RGBA {
	t.Helper()
	return poppler.Pixel(t, pdf, 1, dpi, x, y)
}

func TestASheetOfCardsIsRightToThePress(t *testing.T) {
	poppler.Need(t, "pdfinfo", "pdftoppm", "pdftotext")
	// 130 × 90 cards, centred in their slots: trims from (17, 15) to
	// (147, 105) on the first, the bleed kept from (15, 13) to (149, 107).
	b := Batch{UID: "b-1", Template: sheet(), Items: []Item{{Doc: card(t, 130, 90, ""), Copies: 10, Label: "order 1001 · item 1001-1"}}}
	pdf, sheets := impose(t, b, photos{})
	if len(sheets) != 2 || len(sheets[0].Placements) != 8 || len(sheets[1].Placements) != 2 {
		t.Fatalf("10 copies on 8 slots: %d sheets", len(sheets))
	}
	info := strings.Join(strings.Fields(poppler.Run(t, "pdfinfo", pdf)), " ")
	if !strings.Contains(info, "Pages: 2") || !strings.Contains(info, "Page size: 907.087 x 1275.59 pts") {
		t.Errorf("pdfinfo: %s", info)
	}
	// The cards' red and the paper as pdftoppm shows them: through the
	// file's output intent, as the press prints them (pdfxtest.Proof).
	red := pdfxtest.Proof(t, color.RGBA{R: 255, A: 255})
	white := pdfxtest.Proof(t, color.RGBA{R: 255, G: 255, B: 255, A: 255})
	for _, tc := range []struct {
		what string
		x, y float64
		want func(color.RGBA) bool
	}{
		{"the centre of slot 1", 82, 60, func(c color.RGBA) bool { return c == red }},
		{"the centre of slot 8", 234, 384, func(c color.RGBA) bool { return c == red }},
		{"the gap between the columns", 158, 60, func(c color.RGBA) bool { return c == white }},
		{"beyond the bleed kept, inside the slot", 12, 60, func(c color.RGBA) bool { return c == white }},
		{"within the bleed kept", 16, 60, func(c color.RGBA) bool { return c == red }},
		{"a crop mark along the top edge", 12.5, 15, func(c color.RGBA) bool { return c.R < 160 && c.G < 160 }},
		{"a crop mark along the left edge", 17, 10.5, func(c color.RGBA) bool { return c.R < 160 && c.G < 160 }},
	} {
		if got := pixel(t, pdf, 300, tc.x, tc.y); !tc.want(got) {
			t.Errorf("%s (%v, %v mm): %v", tc.what, tc.x, tc.y, got)
		}
	}
	checkLabelsClearOfMarks(t, sheets)
	text := poppler.Run(t, "pdftotext", "-f", "2", "-l", "2", pdf, "-")
	if !strings.Contains(text, "Batch b-1 · sheet 2 of 2 · SRA3 cards") || !strings.Contains(text, "order 1001 · item 1001-1") {
		t.Errorf("sheet 2's text:\n%s", text)
	}
}

func TestAPhotoOnFortyCardsIsEmbeddedOnce(t *testing.T) {
	poppler.Need(t, "pdfimages")
	img := image.NewRGBA(image.Rect(0, 0, 400, 300))
	for i := range img.Pix {
		img.Pix[i] = uint8(i)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	b := Batch{UID: "b-2", Template: sheet(), Items: []Item{{Doc: card(t, 140, 95, "https://img/photo.jpg"), Copies: 40}}}
	pdf, sheets := impose(t, b, photos{"https://img/photo.jpg": {Data: buf.Bytes(), Format: "jpeg"}})
	if len(sheets) != 5 {
		t.Errorf("40 copies on 8 slots: %d sheets", len(sheets))
	}
	objects := map[string]bool{}
	for i, line := range strings.Split(poppler.Run(t, "pdfimages", "-list", pdf), "\n") {
		if f := strings.Fields(line); i >= 2 && len(f) > 10 && f[2] == "image" {
			objects[f[10]] = true
		}
	}
	if len(objects) != 1 {
		t.Errorf("the photo is embedded %d times", len(objects))
	}
}

func TestAnItemTurnsOnlyWhenThatIsHowItFits(t *testing.T) {
	b := Batch{UID: "b-3", Template: sheet(), Items: []Item{
		{Doc: card(t, 140, 95, ""), Copies: 1},
		{Doc: card(t, 95, 140, ""), Copies: 1},
	}}
	sheets, err := Plan(b)
	if err != nil {
		t.Fatal(err)
	}
	if p := sheets[0].Placements; p[0].Rotate || !p[1].Rotate {
		t.Errorf("rotations %v, %v; want the portrait card alone turned", p[0].Rotate, p[1].Rotate)
	}
	_, err = Plan(Batch{UID: "b-4", Template: sheet(), Items: []Item{{Doc: card(t, 140, 95, ""), Copies: 1}, {Doc: card(t, 200, 200, ""), Copies: 1}}})
	var nofit *NoFitError
	if !errors.As(err, &nofit) || nofit.Item != 1 {
		t.Errorf("a card larger than every slot: %v", err)
	}
}

// checkLabelsClearOfMarks fails when a crop mark crosses a label's line:
// a label's box is its text at about 0.6 of its size a character wide and
// its size tall, above its baseline.
func checkLabelsClearOfMarks(t *testing.T, sheets []render.Sheet) {
	t.Helper()
	labels := 0
	for n, sheet := range sheets {
		for _, l := range sheet.Texts {
			if l.Size != labelSize {
				continue
			}
			labels++
			x0, x1 := l.X, l.X+float64(len([]rune(l.Text)))*l.Size*0.6*ptToMM
			y0, y1 := l.Y-l.Size*ptToMM, l.Y
			for _, m := range sheet.Marks {
				if min(m[0], m[2]) <= x1 && x0 <= max(m[0], m[2]) && min(m[1], m[3]) <= y1 && y0 <= max(m[1], m[3]) {
					t.Errorf("sheet %d: the crop mark %v crosses the label %q at (%.1f, %.1f)", n+1, m, l.Text, l.X, l.Y)
				}
			}
		}
	}
	if labels == 0 {
		t.Error("no labels to check")
	}
}

// TestLabelsStayClearOfCropMarks: with a slot barely taller than its card,
// the marks below a card reach the label's line; the label starts inside
// the trim's edges, past the mark.
func TestLabelsStayClearOfCropMarks(t *testing.T) {
	tmpl := &templates.Template{Name: "SRA3, 8 A6 cards", SheetWidth: 320, SheetHeight: 450, MarginTop: 5, MarginRight: 5,
		MarginBottom: 5, MarginLeft: 5, Gap: 6, SlotBleed: 2, CropMarks: true,
		Grid: &templates.Grid{Columns: 2, Rows: 4, SlotWidth: 148, SlotHeight: 105}}
	sheets, err := Plan(Batch{UID: "b-5", Template: tmpl, Items: []Item{{Doc: card(t, 140, 100, ""), Copies: 6, Label: "2001 / 2001-1"}}})
	if err != nil {
		t.Fatal(err)
	}
	checkLabelsClearOfMarks(t, sheets)
}

// TestAnOutlineIsThePlanOfItsSlots: every slot filled once, in order, at
// its place, with the crop marks and slug line a batch's sheet gets.
func TestAnOutlineIsThePlanOfItsSlots(t *testing.T) {
	tpl := sheet()
	tpl.MarginBottom = 12
	if err := tpl.Check(); err != nil {
		t.Fatal(err)
	}
	out, err := Outline(tpl)
	if err != nil {
		t.Fatal(err)
	}
	slots := tpl.Layout()
	if len(out.Placements) != len(slots) {
		t.Fatalf("%d placements for %d slots", len(out.Placements), len(slots))
	}
	for i, p := range out.Placements {
		if s := slots[i]; p.X != s.X || p.Y != s.Y || p.Width != s.Width || p.Height != s.Height || p.Rotate || p.Bleed != tpl.SlotBleed {
			t.Errorf("placement %d: %+v; want slot %+v", i, p, s)
		}
	}
	if len(out.Marks) == 0 || len(out.Texts) != 1 || !strings.Contains(out.Texts[0].Text, "sheet 1 of 1 · SRA3 cards") {
		t.Errorf("marks %d, texts %+v", len(out.Marks), out.Texts)
	}
	tpl.CropMarks = false
	if out, _ := Outline(tpl); len(out.Marks) != 0 {
		t.Errorf("crop marks off, yet %d marks", len(out.Marks))
	}
}

// TestABatchFileIsPDFX4 checks a batch's sheets against PDF/X-4, like an
// item file (internal/render): two sheets of cards with a photo, crop
// marks, slug lines and labels, each sheet with its boxes.
func TestABatchFileIsPDFX4(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 40, 30))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	b := Batch{UID: "b-x4", Template: sheet(), Items: []Item{{Doc: card(t, 130, 90, "https://img/p.jpg"), Copies: 10, Label: "order 1 · item 1-1"}}}
	path, sheets := impose(t, b, photos{"https://img/p.jpg": {Data: buf.Bytes(), Format: "jpeg"}})
	pdf, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if pages := pdfxtest.Objects(t, pdf, iccprofile.FOGRA39); pages != len(sheets) || pages != 2 {
		t.Errorf("%d pages, %d sheets", pages, len(sheets))
	}
	images := pdfxtest.Tools(t, path, 2)
	for _, im := range images {
		if im.Colour != "icc" || im.Encoding != "jpeg" {
			t.Errorf("image %+v, want the JPEG photo in the sRGB ICC space", im)
		}
	}
	if len(images) != 10 {
		t.Errorf("%d image uses, want one on each of the 10 cards", len(images))
	}
	if !bytes.Contains(pdf, []byte("/Title(Batch b-x4)")) || !bytes.Contains(pdf, []byte(`<rdf:li xml:lang="x-default">Batch b-x4</rdf:li>`)) {
		t.Error("the file is not titled after its batch in Info and XMP")
	}
}

// TestASlugLineIsOneLineOfText: a template name stored with a newline and
// a right-to-left override prints on one line, in reading order.
func TestASlugLineIsOneLineOfText(t *testing.T) {
	tpl := sheet()
	tpl.MarginBottom = 12
	tpl.Name = "Cards\nBatch forged \u202efdp"
	out, err := Outline(tpl)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Texts) != 1 || strings.ContainsAny(out.Texts[0].Text, "\n\u202e") ||
		!strings.HasSuffix(out.Texts[0].Text, "Cards Batch forged  fdp") {
		t.Errorf("slug lines %+v", out.Texts)
	}
}
