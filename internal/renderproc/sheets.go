package renderproc

import (
	"context"
	"errors"
	"fmt"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/impose"
	"github.com/platen-print/platen/internal/render"
	"github.com/platen-print/platen/internal/templates"
)

// MaxSheetCopies bounds the slots one sheets job fills: what a render in
// its time and memory limits lays out with room to spare.
const MaxSheetCopies = 10_000

// sheets lays out a batch's file for one template: each distinct document
// parsed once, the items placed by internal/impose, the sheets drawn as one
// PDF. Errors name the item by its index in the batch's order_items.
func (s *Server) sheets(ctx context.Context, renderer *render.Renderer, req *renderv1.RenderRequest,
	settings render.Settings, limits render.Limits) ([]*renderv1.RenderedFile, error) {
	job := req.GetSheets()
	if f := req.GetFormats(); len(f) != 1 || f[0] != renderv1.Format_FORMAT_PDF {
		return nil, invalid("formats: a sheets job renders FORMAT_PDF only")
	}
	tmpl := TemplateFromProto(job.GetTemplate())
	if err := tmpl.Check(); err != nil {
		return nil, invalid("sheets.template: " + err.Error())
	}
	items, err := sheetItems(job)
	if err != nil {
		return nil, err
	}
	if err := checkLimits(ctx, renderer, items, settings, limits); err != nil {
		return nil, err
	}
	plan, err := impose.Plan(impose.Batch{UID: job.GetBatchUid(), Template: tmpl, Items: items})
	var noFit *impose.NoFitError
	if errors.As(err, &noFit) {
		return nil, invalid(fmt.Sprintf("order_items[%d]: %v", items[noFit.Item].Ref, err))
	}
	if err != nil {
		return nil, err
	}
	settings.Title = fmt.Sprintf("Batch %s, %s", job.GetBatchUid(), tmpl.Name)
	data, err := renderer.Sheets(ctx, settings, tmpl.SheetWidth, tmpl.SheetHeight, plan)
	var placement *render.PlacementError
	if errors.As(err, &placement) {
		return nil, &itemError{index: placement.Ref, err: placement.Err}
	}
	if err != nil {
		return nil, err
	}
	return []*renderv1.RenderedFile{{
		Format: renderv1.Format_FORMAT_PDF, ContentType: contentTypes[renderv1.Format_FORMAT_PDF],
		Data: data, PageCount: int32(len(plan)), //nolint:gosec // at most MaxSheetCopies
	}}, nil
}

// checkLimits runs the preflight of each item's surface, made with
// settings, against the template's limits (none set: nothing to check,
// since sheets carry no warnings); a limit crossed fails the file, naming
// the item.
func checkLimits(ctx context.Context, renderer *render.Renderer, items []impose.Item, settings render.Settings, limits render.Limits) error {
	if limits == (render.Limits{}) {
		return nil
	}
	for _, it := range items {
		settings.DPI = it.DPI
		if _, err := renderer.Preflight(ctx, it.Doc, settings, limits, it.Surface); err != nil {
			return &itemError{index: it.Ref, err: err}
		}
	}
	return nil
}

// sheetItems parses the job's documents and expands its items into one
// impose item per design surface, checking the indexes and the copies.
func sheetItems(job *renderv1.SheetsJob) ([]impose.Item, error) {
	docs := make([]*designdoc.Document, len(job.GetDocuments()))
	var items []impose.Item
	copies := 0
	for i, it := range job.GetItems() {
		n, ref := int(it.GetDocument()), int(it.GetBatchIndex())
		if n < 0 || n >= len(docs) {
			return nil, invalid(fmt.Sprintf("sheets.items[%d].document: no document %d (there are %d)", i, n, len(docs)))
		}
		if docs[n] == nil {
			doc, err := designdoc.Parse(job.GetDocuments()[n])
			if err != nil {
				return nil, invalid(fmt.Sprintf("order_items[%d]: template_config: %v", ref, err))
			}
			docs[n] = doc
		}
		doc := docs[n]
		copies += int(it.GetCopies()) * len(doc.Surfaces)
		if it.GetCopies() < 1 || copies > MaxSheetCopies {
			return nil, invalid(fmt.Sprintf("order_items[%d]: copies must be 1 or more, and a file at most %d copies in all", ref, MaxSheetCopies))
		}
		dpi := doc.DPI
		if dpi == 0 {
			dpi = int(it.GetDpi())
		}
		for surface := range doc.Surfaces {
			items = append(items, impose.Item{
				Doc: doc, Surface: surface, Copies: int(it.GetCopies()),
				Label: surfaceLabel(it.GetLabel(), doc, surface), DPI: dpi, Ref: ref,
			})
		}
	}
	if len(items) == 0 {
		return nil, invalid("sheets.items: at least one is required")
	}
	return items, nil
}

// surfaceLabel names the surface too when the design has several.
func surfaceLabel(label string, doc *designdoc.Document, surface int) string {
	if len(doc.Surfaces) < 2 {
		return label
	}
	name := doc.Surfaces[surface].Name
	if name == "" {
		name = fmt.Sprintf("surface %d", surface+1)
	}
	return label + " · " + name
}

// itemError is a render failure of one batch item: its message names the
// item, and it unwraps to the renderer's error so that toStatus tells a
// bad document from a temporary fault.
type itemError struct {
	index int
	err   error
}

func (e *itemError) Error() string { return fmt.Sprintf("order_items[%d]: %v", e.index, e.err) }
func (e *itemError) Unwrap() error { return e.err }

// TemplateFromProto is the template a sheets job describes.
func TemplateFromProto(p *renderv1.SheetTemplate) *templates.Template {
	t := &templates.Template{
		Name: p.GetName(), SheetWidth: p.GetSheetWidth(), SheetHeight: p.GetSheetHeight(),
		MarginTop: p.GetMarginTop(), MarginRight: p.GetMarginRight(), MarginBottom: p.GetMarginBottom(), MarginLeft: p.GetMarginLeft(),
		Gap: p.GetGap(), SlotBleed: p.GetSlotBleed(), CropMarks: p.GetCropMarks(),
	}
	if p.GetGridColumns() > 0 {
		t.Grid = &templates.Grid{Columns: int(p.GetGridColumns()), Rows: int(p.GetGridRows()), SlotWidth: p.GetGridSlotWidth(), SlotHeight: p.GetGridSlotHeight()}
	}
	for _, sl := range p.GetSlots() {
		t.Slots = append(t.Slots, templates.Slot{X: sl.GetX(), Y: sl.GetY(), Width: sl.GetWidth(), Height: sl.GetHeight()})
	}
	return t
}

// TemplateToProto describes t for a sheets job.
func TemplateToProto(t *templates.Template) *renderv1.SheetTemplate {
	p := &renderv1.SheetTemplate{
		Name: t.Name, SheetWidth: t.SheetWidth, SheetHeight: t.SheetHeight,
		MarginTop: t.MarginTop, MarginRight: t.MarginRight, MarginBottom: t.MarginBottom, MarginLeft: t.MarginLeft,
		Gap: t.Gap, SlotBleed: t.SlotBleed, CropMarks: t.CropMarks,
	}
	if g := t.Grid; g != nil {
		p.GridColumns, p.GridRows = int32(g.Columns), int32(g.Rows) //nolint:gosec // Check bounds them
		p.GridSlotWidth, p.GridSlotHeight = g.SlotWidth, g.SlotHeight
	}
	for _, sl := range t.Slots {
		p.Slots = append(p.Slots, &renderv1.SheetSlot{X: sl.X, Y: sl.Y, Width: sl.Width, Height: sl.Height})
	}
	return p
}
