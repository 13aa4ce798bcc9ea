package render

import (
	"bytes"
	"cmp"
	"context"
	"fmt"

	"github.com/tdewolff/canvas"

	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/third_party/canvaspdf"
)

// Placement is one copy of a design's surface on a press sheet. Lengths
// are millimetres from the sheet's top-left corner.
type Placement struct {
	Doc     *designdoc.Document
	Surface int
	// The slot: the design's trim box is centred in it.
	X, Y, Width, Height float64
	// Bleed is how much of the design's own bleed is kept around its trim.
	Bleed float64
	// Rotate turns the design a quarter turn (anticlockwise on the sheet).
	Rotate bool
	// DPI is the print's resolution: images far above it are scaled down.
	// 0 keeps them as they are.
	DPI int
	// Ref is what the caller knows the placement by; errors name it.
	Ref int
}

// PlacementError is a placement that could not be drawn.
type PlacementError struct {
	Sheet, Index int // from 0
	Ref          int // the placement's Ref
	Err          error
}

func (e *PlacementError) Error() string {
	return fmt.Sprintf("placement %d of sheet %d: %v", e.Index+1, e.Sheet+1, e.Err)
}

func (e *PlacementError) Unwrap() error { return e.Err }

// SheetText is a line of small print on a sheet (a slug line, a label),
// its baseline's left end at X, Y.
type SheetText struct {
	X, Y, Size float64 // size in points
	Text       string
}

// Sheet is one page of press sheets: its placements, crop marks (segments
// x0, y0, x1, y1) and small print.
type Sheet struct {
	Placements []Placement
	Marks      [][4]float64
	Texts      []SheetText
}

// markWidth is a crop mark's line width: 0.25 pt.
const markWidth = 0.25 * 25.4 / 72

// Sheets renders sheets of width × height mm as one PDF with settings
// (its Title DefaultSheetsTitle when empty; DPI unused: each placement has
// its own), a page each. The designs are drawn as
// vectors, each clipped to its trim plus the bleed it keeps; an image that
// many placements use is embedded once.
func (r *Renderer) Sheets(ctx context.Context, settings Settings, width, height float64, sheets []Sheet) ([]byte, error) {
	fonts := r.fontSet()
	defer fonts.release()
	images := newImageSet(r.images, MaxPixelBytes)
	var buf bytes.Buffer
	opts := settings.pdfOptions()
	buf.Grow(canvaspdf.SizeHint(opts))
	pdf := canvaspdf.New(&buf, width, height, opts)
	pdf.SetInfo(cmp.Or(settings.Title, DefaultSheetsTitle), "", "", "", "Platen")
	t := &pdfTarget{pdf: pdf}
	for n, sheet := range sheets {
		if n > 0 {
			pdf.NewPage(width, height)
		}
		pdf.SetPageBoxes(canvas.Rect{X1: width, Y1: height}, canvas.Rect{})
		c := canvas.NewContext(t)
		c.SetCoordSystem(canvas.CartesianIV)
		for i, pl := range sheet.Placements {
			t.dpmm = float64(pl.DPI) / 25.4
			p := newPage(pl.Doc, settings, fonts, images)
			if err := r.place(ctx, c, t, p, pl); err != nil {
				return nil, &PlacementError{Sheet: n, Index: i, Ref: pl.Ref, Err: err}
			}
		}
		if err := drawSmallPrint(c, fonts, sheet); err != nil {
			return nil, err
		}
	}
	if err := pdf.Close(); err != nil {
		return nil, fmt.Errorf("render: write PDF: %w", err)
	}
	return buf.Bytes(), nil
}

// place draws one placement: the design's page (trim and bleed) centred
// in its slot, turned if asked, clipped to the trim plus the bleed kept.
func (r *Renderer) place(ctx context.Context, c *canvas.Context, t *pdfTarget, p page, pl Placement) error {
	if pl.Surface < 0 || pl.Surface >= len(pl.Doc.Surfaces) {
		return fmt.Errorf("render: no surface %d", pl.Surface)
	}
	cx, cy := pl.X+pl.Width/2, pl.Y+pl.Height/2
	c.Push()
	defer c.Pop()
	if pl.Rotate {
		c.RotateAbout(-90, cx, cy) // anticlockwise on the sheet, the y axis pointing down
	}
	c.Translate(cx-p.trimW/2-p.bleed, cy-p.trimH/2-p.bleed)
	keep := min(pl.Bleed, p.bleed)
	clip := box{x: p.bleed - keep, y: p.bleed - keep, w: p.trimW + 2*keep, h: p.trimH + 2*keep}
	t.pdf.PushClipPolygon(corners(c, clip))
	defer t.pdf.PopClip()
	return r.drawOn(ctx, c, t, p, pl.Doc.Surfaces[pl.Surface])
}

// drawSmallPrint draws a sheet's crop marks and texts in the registration
// colour.
func drawSmallPrint(c *canvas.Context, fonts *fontSet, sheet Sheet) error {
	c.Push()
	defer c.Pop()
	c.ResetStyle()
	c.SetFillColor(canvas.Transparent)
	c.SetStroke(registrationPaint())
	c.SetStrokeWidth(markWidth)
	for _, m := range sheet.Marks {
		path := &canvas.Path{}
		path.MoveTo(m[0], m[1])
		path.LineTo(m[2], m[3])
		c.DrawPath(0, 0, path)
	}
	if len(sheet.Texts) == 0 {
		return nil
	}
	font, err := fonts.font("Go-Regular")
	if err != nil {
		return err
	}
	for _, text := range sheet.Texts {
		face := font.Face(text.Size, registrationPaint().Pattern)
		c.DrawText(text.X, text.Y, canvas.NewTextLine(face, text.Text, canvas.Left))
	}
	return nil
}
