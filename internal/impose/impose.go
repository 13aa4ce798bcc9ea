// Package impose lays a batch's items out on the press sheets of a print
// template: each copy of an item takes a slot, in the order given, filling
// each sheet before the next; an item turns a quarter when that is the only
// way it fits a slot. It adds what the press and the cutter need: crop
// marks in the gap and margins, never over a neighbour; a slug line on
// every sheet (batch, sheet n of m, template); and a label beside each
// slot naming its order and item. Drawing is internal/render's.
package impose

import (
	"fmt"

	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/render"
	"github.com/platen-print/platen/internal/templates"
)

// Item is one item of a batch: a design's surface, how many copies, and
// the label printed beside each copy.
type Item struct {
	Doc     *designdoc.Document
	Surface int
	Copies  int
	Label   string
	// DPI is the print's resolution (render.Placement.DPI).
	DPI int
	// Ref is what the caller knows the item by; render errors name it.
	Ref int
}

// Batch is what is laid out: its uid (for the slug line), the template and
// the items.
type Batch struct {
	UID      string
	Template *templates.Template
	Items    []Item
}

// Small print and marks, in millimetres and points.
const (
	markLength = 3.0 // a crop mark's length
	markOffset = 1.0 // its distance from the trim plus the bleed kept
	slugSize   = 6.0 // the slug line's size, pt
	labelSize  = 4.0 // a label's size, pt
	labelInset = 1.0 // a label's start, right of the trim's left edge
	ptToMM     = 25.4 / 72
)

// NoFitError is an item whose trim fits no slot of the template, even
// turned.
type NoFitError struct {
	Item          int
	Width, Height float64
}

func (e *NoFitError) Error() string {
	return fmt.Sprintf("its trim of %.4g × %.4g mm fits no slot of the template, even turned", e.Width, e.Height)
}

// Plan lays the batch out: the sheets to render.
func Plan(b Batch) ([]render.Sheet, error) {
	slots := b.Template.Layout()
	var sheets []render.Sheet
	next := len(slots) // the next slot to fill; past the last, a new sheet
	for i, it := range b.Items {
		w, h := Trim(it.Doc)
		if !fitsAny(slots, w, h) {
			return nil, &NoFitError{Item: i, Width: w, Height: h}
		}
		for range it.Copies {
			for {
				if next == len(slots) {
					sheets, next = append(sheets, render.Sheet{}), 0
				}
				s := slots[next]
				next++
				if rotate, ok := fit(s, w, h); ok {
					sheet := &sheets[len(sheets)-1]
					sheet.Placements = append(sheet.Placements, render.Placement{
						Doc: it.Doc, Surface: it.Surface, X: s.X, Y: s.Y, Width: s.Width, Height: s.Height,
						Bleed: b.Template.SlotBleed, Rotate: rotate, DPI: it.DPI, Ref: it.Ref,
					})
					sheet.Texts = append(sheet.Texts, label(b.Template, s, sheet.Placements[len(sheet.Placements)-1], it.Label)...)
					break
				}
			}
		}
	}
	for n := range sheets {
		finish(b, &sheets[n], n, len(sheets))
	}
	return sheets, nil
}

// Trim is a design's trim size in millimetres.
func Trim(d *designdoc.Document) (w, h float64) { return d.ToMM(d.Width), d.ToMM(d.Height) }

// Fits reports whether d's trim fits some slot of t, turned or not.
func Fits(t *templates.Template, d *designdoc.Document) bool {
	w, h := Trim(d)
	return fitsAny(t.Layout(), w, h)
}

const eps = 1e-6

// fit reports whether a w × h trim fits slot s, and whether it must turn.
func fit(s templates.Slot, w, h float64) (rotate, ok bool) {
	switch {
	case w <= s.Width+eps && h <= s.Height+eps:
		return false, true
	case h <= s.Width+eps && w <= s.Height+eps:
		return true, true
	}
	return false, false
}

func fitsAny(slots []templates.Slot, w, h float64) bool {
	for _, s := range slots {
		if _, ok := fit(s, w, h); ok {
			return true
		}
	}
	return false
}

// label is the small print beside a slot: below it, when the space below
// holds it clear of the bleed, starting just inside the trim's left edge
// so that the crop mark on that edge's line passes before it.
func label(t *templates.Template, s templates.Slot, p render.Placement, text string) []render.SheetText {
	y := s.Y + s.Height + t.SlotBleed + labelSize*ptToMM + 0.5
	if text == "" || y > nextBelow(t, s) {
		return nil
	}
	return []render.SheetText{{X: trimArea(p).X + labelInset, Y: y, Size: labelSize, Text: text}}
}

// nextBelow is where the next thing below slot s starts: another slot's
// bleed, or the sheet's edge.
func nextBelow(t *templates.Template, s templates.Slot) float64 {
	limit := t.SheetHeight
	for _, o := range t.Layout() {
		if o.Y > s.Y+s.Height && o.X < s.X+s.Width && s.X < o.X+o.Width {
			limit = min(limit, o.Y-t.SlotBleed)
		}
	}
	return limit
}

// finish adds a sheet's crop marks and slug line.
func finish(b Batch, sheet *render.Sheet, n, of int) {
	t := b.Template
	if t.CropMarks {
		sheet.Marks = cropMarks(t, sheet.Placements)
	}
	if t.MarginBottom >= slugSize*ptToMM+1 {
		slug := fmt.Sprintf("Batch %s · sheet %d of %d · %s", b.UID, n+1, of, templates.PrintableName(t.Name))
		sheet.Texts = append(sheet.Texts, render.SheetText{X: t.MarginLeft, Y: t.SheetHeight - (t.MarginBottom-slugSize*ptToMM)/2, Size: slugSize, Text: slug})
	}
}

// cropMarks are two marks at each trim corner of every placement, pointing
// away from it, each kept only where it touches no placement's clip area
// (trim plus bleed kept) and stays on the sheet.
func cropMarks(t *templates.Template, placements []render.Placement) [][4]float64 {
	clips := make([]templates.Slot, len(placements))
	for i, p := range placements {
		clips[i] = clipArea(p)
	}
	sheet := templates.Slot{Width: t.SheetWidth, Height: t.SheetHeight}
	var marks [][4]float64
	for _, p := range placements {
		tr := trimArea(p)
		off := min(p.Bleed, bleedOf(p)) + markOffset
		for _, corner := range [][2]float64{{tr.X, tr.Y}, {tr.X + tr.Width, tr.Y}, {tr.X, tr.Y + tr.Height}, {tr.X + tr.Width, tr.Y + tr.Height}} {
			dx, dy := -1.0, -1.0
			if corner[0] > tr.X {
				dx = 1
			}
			if corner[1] > tr.Y {
				dy = 1
			}
			// One mark along each edge's line, beyond the corner.
			for _, m := range [][4]float64{
				{corner[0] + dx*off, corner[1], corner[0] + dx*(off+markLength), corner[1]},
				{corner[0], corner[1] + dy*off, corner[0], corner[1] + dy*(off+markLength)},
			} {
				if clear(m, clips, sheet) {
					marks = append(marks, m)
				}
			}
		}
	}
	return marks
}

// trimArea is where a placement's trim lies on the sheet.
func trimArea(p render.Placement) templates.Slot {
	w, h := Trim(p.Doc)
	if p.Rotate {
		w, h = h, w
	}
	return templates.Slot{X: p.X + (p.Width-w)/2, Y: p.Y + (p.Height-h)/2, Width: w, Height: h}
}

func bleedOf(p render.Placement) float64 { return p.Doc.ToMM(p.Doc.Bleed) }

// clipArea is a placement's trim plus the bleed it keeps.
func clipArea(p render.Placement) templates.Slot {
	tr := trimArea(p)
	k := min(p.Bleed, bleedOf(p))
	return templates.Slot{X: tr.X - k, Y: tr.Y - k, Width: tr.Width + 2*k, Height: tr.Height + 2*k}
}

// clear reports whether segment m stays on the sheet and off every clip
// area.
func clear(m [4]float64, clips []templates.Slot, sheet templates.Slot) bool {
	seg := templates.Slot{X: min(m[0], m[2]), Y: min(m[1], m[3]), Width: abs(m[2] - m[0]), Height: abs(m[3] - m[1])}
	if seg.X < 0 || seg.Y < 0 || seg.X+seg.Width > sheet.Width || seg.Y+seg.Height > sheet.Height {
		return false
	}
	for _, c := range clips {
		if seg.X <= c.X+c.Width && c.X <= seg.X+seg.Width && seg.Y <= c.Y+c.Height && c.Y <= seg.Y+seg.Height {
			return false
		}
	}
	return true
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
