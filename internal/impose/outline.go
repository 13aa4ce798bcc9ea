package impose

import (
	"fmt"

	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/render"
	"github.com/platen-print/platen/internal/templates"
)

// OutlineUID stands for the batch's uid in an outline's slug line.
const OutlineUID = "…"

// Outline is a sheet of t as Plan lays it out when every slot holds an
// item of the slot's own size with at least the bleed t keeps: each slot
// filled once, in order, with its crop marks and slug line. The operator
// panel draws it, so that what it shows is what batches get. t must pass
// Check; a template with no slot has no outline.
func Outline(t *templates.Template) (render.Sheet, error) {
	slots := t.Layout()
	items := make([]Item, len(slots))
	for i, s := range slots {
		items[i] = Item{Doc: &designdoc.Document{Unit: designdoc.Millimetre, Width: s.Width, Height: s.Height, Bleed: t.SlotBleed}, Copies: 1, Ref: i}
	}
	sheets, err := Plan(Batch{UID: OutlineUID, Template: t, Items: items})
	if err != nil {
		return render.Sheet{}, err
	}
	if len(sheets) != 1 {
		return render.Sheet{}, fmt.Errorf("impose: %d slots made %d sheets", len(slots), len(sheets))
	}
	return sheets[0], nil
}
