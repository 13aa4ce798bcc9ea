package panel

// A print template's form: its values as typed, the API request they
// make, and the drawing of the sheet they describe.

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"google.golang.org/protobuf/types/known/fieldmaskpb"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/impose"
	"github.com/platen-print/platen/internal/render"
	"github.com/platen-print/platen/internal/templates"
)

// formRequest reads a template's form as a create request: every length
// as typed (empty is 0, as when the API's JSON leaves it out) and the grid
// or the slots, as chosen. Text that is no number is refused naming its
// field, as the API names it; the API checks the rest.
func formRequest(v url.Values) (*platenv1.CreatePrintTemplateRequest, error) {
	var vs apierr.Violations
	mm := func(field string) float64 { return number(&vs, v.Get(field), field) }
	req := &platenv1.CreatePrintTemplateRequest{
		Name: strings.TrimSpace(v.Get("name")), SheetWidthMm: mm("sheet_width_mm"), SheetHeightMm: mm("sheet_height_mm"),
		MarginTopMm: mm("margin_top_mm"), MarginRightMm: mm("margin_right_mm"), MarginBottomMm: mm("margin_bottom_mm"),
		MarginLeftMm: mm("margin_left_mm"), GapMm: mm("gap_mm"), SlotBleedMm: mm("slot_bleed_mm"), CropMarks: v.Get("crop_marks") != "",
	}
	if v.Get("layout") == "slots" {
		req.Slots = formSlots(&vs, v.Get("slots"))
	} else {
		req.Grid = &platenv1.PrintTemplateGrid{
			Columns: count(&vs, v.Get("grid.columns"), "grid.columns"), Rows: count(&vs, v.Get("grid.rows"), "grid.rows"),
			SlotWidthMm: mm("grid.slot_width_mm"), SlotHeightMm: mm("grid.slot_height_mm"),
		}
	}
	return req, vs.Err()
}

// number is a length as typed; empty is 0.
func number(vs *apierr.Violations, text, field string) float64 {
	text = strings.TrimSpace(text)
	if text == "" {
		return 0
	}
	n, err := strconv.ParseFloat(text, 64)
	if err != nil {
		vs.Add(field, "must be a number of millimetres, got %q", text)
	}
	return n
}

// count is a grid's columns or rows as typed; empty is 0.
func count(vs *apierr.Violations, text, field string) int32 {
	text = strings.TrimSpace(text)
	if text == "" {
		return 0
	}
	n, err := strconv.ParseInt(text, 10, 32)
	if err != nil {
		vs.Add(field, "must be a whole number, got %q", text)
	}
	return int32(n) //nolint:gosec // ParseInt kept it to 32 bits
}

// formSlots reads explicit slots, one a line: x y width height, in mm,
// apart by spaces or commas.
func formSlots(vs *apierr.Violations, text string) []*platenv1.PrintTemplateSlot {
	var slots []*platenv1.PrintTemplateSlot
	for line := range strings.Lines(text) {
		parts := strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\r' || r == '\n' })
		if len(parts) == 0 {
			continue
		}
		field := fmt.Sprintf("slots[%d]", len(slots))
		if len(parts) != 4 {
			vs.Add(field, "must be four numbers, x y width height in mm, got %q", strings.TrimSpace(line))
		}
		var n [4]float64
		for i := range min(len(parts), 4) {
			n[i] = number(vs, parts[i], field)
		}
		slots = append(slots, &platenv1.PrintTemplateSlot{XMm: n[0], YMm: n[1], WidthMm: n[2], HeightMm: n[3]})
	}
	if len(slots) == 0 {
		vs.Add("slots", "give at least one slot, a line each: x y width height in mm")
	}
	return slots
}

// updateRequest replaces every field of the form with c's. The layout not
// chosen comes first in the mask, so that the chosen one, applied last,
// clears it.
func updateRequest(uid string, c *platenv1.CreatePrintTemplateRequest) *platenv1.UpdatePrintTemplateRequest {
	layout := []string{"slots", "grid"}
	if c.Grid == nil {
		layout = []string{"grid", "slots"}
	}
	return &platenv1.UpdatePrintTemplateRequest{
		TemplateUid: uid, Name: &c.Name, SheetWidthMm: &c.SheetWidthMm, SheetHeightMm: &c.SheetHeightMm,
		MarginTopMm: &c.MarginTopMm, MarginRightMm: &c.MarginRightMm, MarginBottomMm: &c.MarginBottomMm, MarginLeftMm: &c.MarginLeftMm,
		GapMm: &c.GapMm, SlotBleedMm: &c.SlotBleedMm, CropMarks: &c.CropMarks, Grid: c.Grid, Slots: c.Slots,
		UpdateMask: &fieldmaskpb.FieldMask{Paths: append([]string{"name", "sheet_width_mm", "sheet_height_mm", "margin_top_mm",
			"margin_right_mm", "margin_bottom_mm", "margin_left_mm", "gap_mm", "slot_bleed_mm", "crop_marks"}, layout...)},
	}
}

// templateValues are a stored template as its form holds it.
func templateValues(t *platenv1.PrintTemplate) url.Values {
	v := url.Values{"name": {t.Name}, "sheet_width_mm": {mmText(t.SheetWidthMm)}, "sheet_height_mm": {mmText(t.SheetHeightMm)},
		"margin_top_mm": {mmText(t.MarginTopMm)}, "margin_right_mm": {mmText(t.MarginRightMm)},
		"margin_bottom_mm": {mmText(t.MarginBottomMm)}, "margin_left_mm": {mmText(t.MarginLeftMm)},
		"gap_mm": {mmText(t.GapMm)}, "slot_bleed_mm": {mmText(t.SlotBleedMm)}}
	if t.CropMarks {
		v.Set("crop_marks", "on")
	}
	if g := t.Grid; g != nil {
		v.Set("layout", "grid")
		v.Set("grid.columns", strconv.Itoa(int(g.Columns)))
		v.Set("grid.rows", strconv.Itoa(int(g.Rows)))
		v.Set("grid.slot_width_mm", evenText(g.SlotWidthMm))
		v.Set("grid.slot_height_mm", evenText(g.SlotHeightMm))
		return v
	}
	v.Set("layout", "slots")
	lines := make([]string, len(t.Slots))
	for i, s := range t.Slots {
		lines[i] = strings.Join([]string{mmText(s.XMm), mmText(s.YMm), mmText(s.WidthMm), mmText(s.HeightMm)}, " ")
	}
	v.Set("slots", strings.Join(lines, "\n"))
	return v
}

func mmText(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// evenText is a grid slot's side as its input shows it: empty when 0, so
// that the input says "even", as the room is shared.
func evenText(v float64) string {
	if v == 0 {
		return ""
	}
	return mmText(v)
}

// modelOf is the template req describes, for its rules and its layout.
func modelOf(req *platenv1.CreatePrintTemplateRequest) *templates.Template {
	t := &templates.Template{Name: req.Name, SheetWidth: req.SheetWidthMm, SheetHeight: req.SheetHeightMm,
		MarginTop: req.MarginTopMm, MarginRight: req.MarginRightMm, MarginBottom: req.MarginBottomMm, MarginLeft: req.MarginLeftMm,
		Gap: req.GapMm, SlotBleed: req.SlotBleedMm, CropMarks: req.CropMarks}
	if g := req.Grid; g != nil {
		t.Grid = &templates.Grid{Columns: int(g.Columns), Rows: int(g.Rows), SlotWidth: g.SlotWidthMm, SlotHeight: g.SlotHeightMm}
	}
	for _, s := range req.Slots {
		t.Slots = append(t.Slots, templates.Slot{X: s.XMm, Y: s.YMm, Width: s.WidthMm, Height: s.HeightMm})
	}
	return t
}

// sheetDrawing is a sheet as the page draws it (an SVG in mm), or why the
// values describe none.
type sheetDrawing struct {
	Error         string
	Width, Height float64
	// Area is the printable area, inside the margins.
	Area  templates.Slot
	Slots []drawnSlot
	Marks [][4]float64
	Texts []drawnText
	// Dash is the margin line's dash, a fraction of the sheet so that it
	// shows at any size.
	Dash    float64
	Summary string
}

// drawnSlot is a slot, numbered from 1, with the bleed kept around it.
type drawnSlot struct {
	templates.Slot
	N    int
	Kept *templates.Slot
	// Label is the number's size, 0 when slots are too many to number;
	// CX, CY its place, the slot's centre.
	Label, CX, CY float64
}

// drawnText is a line of small print, its size in mm.
type drawnText struct {
	X, Y, Size float64
	Text       string
}

// maxNumbered is how many slots the drawing numbers; more would be noise.
const maxNumbered = 100

// drawingOf draws the sheet the form's values describe, laid out by
// internal/impose as a batch's sheet is; values the API would refuse
// give its message instead.
func drawingOf(ctx context.Context, v url.Values) sheetDrawing {
	req, err := formRequest(v)
	var t *templates.Template
	var sheet render.Sheet
	if err == nil {
		t = modelOf(req)
		if t.Name == "" {
			t.Name = "New template" // a name is for saving; the sheet is drawn without one
		}
		err = t.Check()
	}
	if err == nil {
		sheet, err = impose.Outline(t)
	}
	if err != nil {
		return sheetDrawing{Error: apierr.ToStatus(ctx, err).Message()}
	}
	return draw(t, sheet)
}

// draw turns an outline into what the SVG shows.
func draw(t *templates.Template, sheet render.Sheet) sheetDrawing {
	d := sheetDrawing{Width: t.SheetWidth, Height: t.SheetHeight, Marks: sheet.Marks, Dash: max(t.SheetWidth, t.SheetHeight) / 150,
		Area: templates.Slot{X: t.MarginLeft, Y: t.MarginTop, Width: t.SheetWidth - t.MarginLeft - t.MarginRight, Height: t.SheetHeight - t.MarginTop - t.MarginBottom}}
	for i, p := range sheet.Placements {
		s := drawnSlot{Slot: templates.Slot{X: p.X, Y: p.Y, Width: p.Width, Height: p.Height}, N: i + 1, CX: p.X + p.Width/2, CY: p.Y + p.Height/2}
		if p.Bleed > 0 {
			s.Kept = &templates.Slot{X: p.X - p.Bleed, Y: p.Y - p.Bleed, Width: p.Width + 2*p.Bleed, Height: p.Height + 2*p.Bleed}
		}
		if len(sheet.Placements) <= maxNumbered {
			s.Label = min(p.Width, p.Height) / 3
		}
		d.Slots = append(d.Slots, s)
	}
	for _, x := range sheet.Texts {
		d.Texts = append(d.Texts, drawnText{X: x.X, Y: x.Y, Size: x.Size * 25.4 / 72, Text: x.Text})
	}
	d.Summary = summary(t, len(d.Slots))
	return d
}

// summary says the sheet in words, under its drawing.
func summary(t *templates.Template, slots int) string {
	parts := []string{fmt.Sprintf("%v × %v mm", t.SheetWidth, t.SheetHeight)}
	if g := t.Grid; g != nil {
		s := t.Layout()[0]
		parts = append(parts, fmt.Sprintf("%d slots (%d × %d) of %.4g × %.4g mm", slots, g.Columns, g.Rows, s.Width, s.Height))
	} else {
		parts = append(parts, fmt.Sprintf("%d slots", slots))
	}
	if t.SlotBleed > 0 {
		parts = append(parts, fmt.Sprintf("%v mm of bleed kept", t.SlotBleed))
	}
	if t.CropMarks {
		parts = append(parts, "crop marks")
	}
	return strings.Join(parts, " · ")
}
