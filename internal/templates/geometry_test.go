package templates

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/apierr"
)

// sra3 is an SRA3 sheet with a 2 × 4 grid of A6 cards, landscape.
func sra3() *Template {
	return &Template{Name: "SRA3 A6 ×8", SheetWidth: 320, SheetHeight: 450, MarginTop: 5, MarginRight: 5, MarginBottom: 5, MarginLeft: 5,
		Gap: 6, SlotBleed: 3, Grid: &Grid{Columns: 2, Rows: 4, SlotWidth: 148, SlotHeight: 105}}
}

func fields(t *testing.T, err error) []string {
	t.Helper()
	var ve *apierr.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("%v is not a validation error", err)
	}
	var out []string
	for _, v := range ve.Violations {
		out = append(out, v.Field)
	}
	return out
}

func TestAGridLaysOutRowByRow(t *testing.T) {
	tpl := sra3()
	if err := tpl.Check(); err != nil {
		t.Fatal(err)
	}
	slots := tpl.Layout()
	if len(slots) != 8 || slots[0] != (Slot{X: 5, Y: 5, Width: 148, Height: 105}) || slots[1] != (Slot{X: 159, Y: 5, Width: 148, Height: 105}) ||
		slots[7] != (Slot{X: 159, Y: 5 + 3*111, Width: 148, Height: 105}) {
		t.Errorf("layout %v", slots)
	}
	even := &Template{Name: "even", SheetWidth: 100, SheetHeight: 50, Gap: 10, Grid: &Grid{Columns: 2, Rows: 1}}
	if err := even.Check(); err != nil {
		t.Fatal(err)
	}
	if got := even.Layout(); got[1] != (Slot{X: 55, Y: 0, Width: 45, Height: 50}) {
		t.Errorf("an even grid's second slot %v", got[1])
	}
}

func TestTemplateRules(t *testing.T) {
	for name, tc := range map[string]struct {
		edit  func(*Template)
		field string
		msg   string
	}{
		"no name":             {func(t *Template) { t.Name = "" }, "name", "is required"},
		"no sheet":            {func(t *Template) { t.SheetWidth = 0 }, "sheet_width_mm", "must be above 0"},
		"a negative margin":   {func(t *Template) { t.MarginTop = -1 }, "margin_top_mm", "must be from 0"},
		"margins fill it":     {func(t *Template) { t.MarginLeft, t.MarginRight = 160, 160 }, "margin_left_mm", "leaves no room"},
		"both grid and slots": {func(t *Template) { t.Slots = []Slot{{10, 10, 5, 5}} }, "grid", "not both"},
		"neither":             {func(t *Template) { t.Grid = nil }, "grid", "is required"},
		"no columns":          {func(t *Template) { t.Grid.Columns = 0 }, "grid.columns", "must be from 1"},
		"too wide a grid":     {func(t *Template) { t.Grid.Columns = 3 }, "grid.columns", "do not fit"},
		"too tall a grid":     {func(t *Template) { t.Grid.SlotHeight = 110 }, "grid.rows", "do not fit"},
		"bleed past the gap":  {func(t *Template) { t.SlotBleed = 3.5 }, "slot_bleed_mm", "at most half the space"},
		"bleed off the sheet": {func(t *Template) { t.MarginLeft, t.SlotBleed = 1, 2 }, "slot_bleed_mm", "runs off the sheet"},
		"a slot outside":      {func(t *Template) { t.Grid, t.Slots = nil, []Slot{{2, 10, 50, 50}} }, "slots[0]", "inside the margins"},
		"an empty slot":       {func(t *Template) { t.Grid, t.Slots = nil, []Slot{{10, 10, 0, 50}} }, "slots[0]", "positive width_mm"},
		"overlapping slots":   {func(t *Template) { t.Grid, t.SlotBleed, t.Slots = nil, 0, []Slot{{10, 10, 50, 50}, {40, 40, 50, 50}} }, "slots[1]", "overlaps slots[0]"},
		"a variant twice":     {func(t *Template) { t.VariantIDs = []int{4, 4} }, "variant_ids[1]", "twice"},
	} {
		tpl := sra3()
		tc.edit(tpl)
		err := tpl.Check()
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if got := fields(t, err); !slices.Contains(got, tc.field) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v (fields %v); want %s: …%s…", name, err, got, tc.field, tc.msg)
		}
	}
}
