package templates

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/platen-print/platen/internal/apierr"
)

// Limits of a template.
const (
	maxSheetMM  = 5_000 // as a design's page
	maxGridSide = 100
	maxSlots    = 1_000
	maxNameLen  = 255
)

// Check reports every rule t breaks, as field violations named as in the
// API: a name, a sheet of positive size, margins that leave room, exactly
// one of grid and slots, slots inside the margins and apart, a slot bleed
// that reaches no neighbour.
func (t *Template) Check() error {
	var vs apierr.Violations
	t.checkName(&vs)
	t.checkSheet(&vs)
	switch {
	case t.Grid != nil && len(t.Slots) > 0:
		vs.Add("grid", "give grid or slots, not both")
	case t.Grid == nil && len(t.Slots) == 0:
		vs.Add("grid", "is required: give grid, or slots")
	case vs.Empty() && t.Grid != nil:
		t.checkGrid(&vs)
	case vs.Empty():
		t.checkSlots(&vs)
	}
	if vs.Empty() {
		t.checkBleed(&vs)
	}
	seen := map[int]bool{}
	for i, id := range t.VariantIDs {
		if seen[id] {
			vs.Add(fmt.Sprintf("variant_ids[%d]", i), "names variant %d twice", id)
		}
		seen[id] = true
	}
	return vs.Err()
}

func (t *Template) checkName(vs *apierr.Violations) {
	switch {
	case t.Name == "":
		vs.Add("name", "is required")
	case len([]rune(t.Name)) > maxNameLen:
		vs.Add("name", "must be at most %d characters", maxNameLen)
	case strings.ContainsFunc(t.Name, hidden):
		r := []rune(t.Name)[slices.IndexFunc([]rune(t.Name), hidden)]
		vs.Add("name", "must not contain control or formatting characters (U+%04X): it is printed on every sheet's slug line", r)
	}
}

// hidden reports a character that is not text one reads: a control
// (a newline starts a line of its own on the slug line), a line or
// paragraph separator, or a format character (U+202E, the right-to-left
// override, reverses what follows it; U+200B hides itself).
func hidden(r rune) bool {
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
}

// PrintableName is a template's name as sheets print it: names stored
// before hidden characters were refused have each of them as a space.
func PrintableName(name string) string {
	if !strings.ContainsFunc(name, hidden) {
		return name
	}
	return strings.Map(func(r rune) rune {
		if hidden(r) {
			return ' '
		}
		return r
	}, name)
}

func (t *Template) checkSheet(vs *apierr.Violations) {
	for _, l := range []struct {
		field string
		v     float64
		min   float64
	}{
		{"sheet_width_mm", t.SheetWidth, math.SmallestNonzeroFloat64}, {"sheet_height_mm", t.SheetHeight, math.SmallestNonzeroFloat64},
		{"margin_top_mm", t.MarginTop, 0}, {"margin_right_mm", t.MarginRight, 0},
		{"margin_bottom_mm", t.MarginBottom, 0}, {"margin_left_mm", t.MarginLeft, 0},
		{"gap_mm", t.Gap, 0}, {"slot_bleed_mm", t.SlotBleed, 0},
	} {
		if math.IsNaN(l.v) || l.v < l.min || l.v > maxSheetMM {
			what := "from 0"
			if l.min > 0 {
				what = "above 0"
			}
			vs.Add(l.field, "must be %s to %d mm, got %v", what, maxSheetMM, l.v)
		}
	}
	if !vs.Empty() {
		return
	}
	if t.MarginLeft+t.MarginRight >= t.SheetWidth {
		vs.Add("margin_left_mm", "with margin_right_mm leaves no room on a sheet %v mm wide", t.SheetWidth)
	}
	if t.MarginTop+t.MarginBottom >= t.SheetHeight {
		vs.Add("margin_top_mm", "with margin_bottom_mm leaves no room on a sheet %v mm high", t.SheetHeight)
	}
}

// printable is the area inside the margins.
func (t *Template) printable() Slot {
	return Slot{X: t.MarginLeft, Y: t.MarginTop, Width: t.SheetWidth - t.MarginLeft - t.MarginRight, Height: t.SheetHeight - t.MarginTop - t.MarginBottom}
}

func (t *Template) checkGrid(vs *apierr.Violations) {
	g := t.Grid
	for _, side := range []struct {
		field string
		n     int
	}{{"grid.columns", g.Columns}, {"grid.rows", g.Rows}} {
		if side.n < 1 || side.n > maxGridSide {
			vs.Add(side.field, "must be from 1 to %d, got %d", maxGridSide, side.n)
		}
	}
	if g.SlotWidth < 0 || math.IsNaN(g.SlotWidth) {
		vs.Add("grid.slot_width_mm", "must not be negative, got %v", g.SlotWidth)
	}
	if g.SlotHeight < 0 || math.IsNaN(g.SlotHeight) {
		vs.Add("grid.slot_height_mm", "must not be negative, got %v", g.SlotHeight)
	}
	if !vs.Empty() {
		return
	}
	area := t.printable()
	w, h := t.gridSlotSize()
	if w <= 0 || float64(g.Columns)*w+float64(g.Columns-1)*t.Gap > area.Width+1e-9 {
		vs.Add("grid.columns", "%d columns of %.4g mm with %v mm between do not fit the %.4g mm inside the margins", g.Columns, w, t.Gap, area.Width)
	}
	if h <= 0 || float64(g.Rows)*h+float64(g.Rows-1)*t.Gap > area.Height+1e-9 {
		vs.Add("grid.rows", "%d rows of %.4g mm with %v mm between do not fit the %.4g mm inside the margins", g.Rows, h, t.Gap, area.Height)
	}
}

// gridSlotSize is a grid slot's size: as given, or the printable area
// shared evenly.
func (t *Template) gridSlotSize() (float64, float64) {
	g, area := t.Grid, t.printable()
	w, h := g.SlotWidth, g.SlotHeight
	if w == 0 {
		w = (area.Width - float64(g.Columns-1)*t.Gap) / float64(g.Columns)
	}
	if h == 0 {
		h = (area.Height - float64(g.Rows-1)*t.Gap) / float64(g.Rows)
	}
	return w, h
}

func (t *Template) checkSlots(vs *apierr.Violations) {
	if len(t.Slots) > maxSlots {
		vs.Add("slots", "must hold at most %d slots, got %d", maxSlots, len(t.Slots))
		return
	}
	area := t.printable()
	for i, s := range t.Slots {
		field := fmt.Sprintf("slots[%d]", i)
		switch {
		case !(s.Width > 0) || !(s.Height > 0):
			vs.Add(field, "must have a positive width_mm and height_mm")
		case !area.contains(s):
			vs.Add(field, "must lie inside the margins: x_mm %v to %v, y_mm %v to %v", area.X, area.X+area.Width, area.Y, area.Y+area.Height)
		}
	}
	if !vs.Empty() {
		return
	}
	for i, a := range t.Slots {
		for j := i + 1; j < len(t.Slots); j++ {
			if a.overlaps(t.Slots[j]) {
				vs.Add(fmt.Sprintf("slots[%d]", j), "overlaps slots[%d]", i)
			}
		}
	}
}

// checkBleed keeps every slot's bleed on the sheet and off its neighbours.
func (t *Template) checkBleed(vs *apierr.Violations) {
	if t.SlotBleed == 0 {
		return
	}
	slots := t.Layout()
	sheet := Slot{Width: t.SheetWidth, Height: t.SheetHeight}
	for i, s := range slots {
		grown := s.grow(t.SlotBleed)
		if !sheet.contains(grown) {
			vs.Add("slot_bleed_mm", "%v mm around slot %d runs off the sheet", t.SlotBleed, i+1)
			return
		}
		for j := i + 1; j < len(slots); j++ {
			if grown.overlaps(slots[j].grow(t.SlotBleed)) {
				vs.Add("slot_bleed_mm", "%v mm around slots %d and %d overlaps: at most half the space between slots", t.SlotBleed, i+1, j+1)
				return
			}
		}
	}
}

// Layout is every slot of the sheet, row by row from the top-left.
func (t *Template) Layout() []Slot {
	if t.Grid == nil {
		return t.Slots
	}
	w, h := t.gridSlotSize()
	area := t.printable()
	slots := make([]Slot, 0, t.Grid.Columns*t.Grid.Rows)
	for r := range t.Grid.Rows {
		for c := range t.Grid.Columns {
			slots = append(slots, Slot{X: area.X + float64(c)*(w+t.Gap), Y: area.Y + float64(r)*(h+t.Gap), Width: w, Height: h})
		}
	}
	return slots
}

const eps = 1e-9

func (s Slot) contains(o Slot) bool {
	return o.X >= s.X-eps && o.Y >= s.Y-eps && o.X+o.Width <= s.X+s.Width+eps && o.Y+o.Height <= s.Y+s.Height+eps
}

func (s Slot) overlaps(o Slot) bool {
	return s.X < o.X+o.Width-eps && o.X < s.X+s.Width-eps && s.Y < o.Y+o.Height-eps && o.Y < s.Y+s.Height-eps
}

func (s Slot) grow(d float64) Slot {
	return Slot{X: s.X - d, Y: s.Y - d, Width: s.Width + 2*d, Height: s.Height + 2*d}
}
