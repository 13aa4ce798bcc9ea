package render

import (
	"fmt"
	"math"

	"github.com/tdewolff/canvas"

	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/third_party/canvaspdf"
)

// shape draws a rect, ellipse, line or path layer in its box b.
func (r *Renderer) shape(c *canvas.Context, p page, l designdoc.Layer, b box) error {
	outline, err := p.layerOutline(l, b)
	if err != nil {
		return err
	}
	c.SetFillColor(canvas.Transparent)
	if l.FillGradient != nil && l.FillGradient.Points != nil {
		c.SetFill(pointsGradientPaint(*l.FillGradient, p.doc.ToMM(1), l.Opacity))
	} else if l.FillGradient != nil {
		c.SetFill(gradientPaint(*l.FillGradient, p.gradientBox(l, b), l.Opacity, l.Overprint))
	} else if l.Fill != nil {
		c.SetFill(paint(*l.Fill, l.Opacity, l.Overprint))
	}
	if l.FillRule == "evenodd" {
		c.SetFillRule(canvas.EvenOdd)
	}
	c.SetStrokeColor(canvas.Transparent)
	if l.Stroke != nil && l.StrokeWidth > 0 {
		p.setStroke(c, l)
	}
	// Paths are drawn from their own origin; in CartesianIV that is the
	// top-left corner, with y growing downwards.
	c.DrawPath(b.x, b.y, outline)
	return nil
}

// setStroke sets l's outline: colour, width, dashes, caps and joins.
func (p page) setStroke(c *canvas.Context, l designdoc.Layer) {
	width := p.doc.ToMM(l.StrokeWidth)
	if width <= hairlineUpTo {
		c.SetStroke(blackLinePaint(*l.Stroke, l.Opacity, l.Overprint))
	} else {
		c.SetStroke(paint(*l.Stroke, l.Opacity, l.Overprint))
	}
	c.SetStrokeWidth(width)
	switch l.LineCap {
	case "round":
		c.SetStrokeCapper(canvas.RoundCap)
	case "square":
		c.SetStrokeCapper(canvas.SquareCap)
	default:
		c.SetStrokeCapper(canvas.ButtCap)
	}
	switch l.LineJoin {
	case "round":
		c.SetStrokeJoiner(canvas.RoundJoin)
	case "bevel":
		c.SetStrokeJoiner(canvas.BevelJoin)
	default:
		// SVG's and CSS's miter limit, 4, beyond which a corner is bevelled.
		c.SetStrokeJoiner(canvas.MiterJoiner{GapJoiner: canvas.BevelJoin, Limit: 4})
	}
	if len(l.Dash) > 0 {
		dashes := make([]float64, 0, 2*len(l.Dash))
		for _, d := range l.Dash {
			dashes = append(dashes, p.doc.ToMM(d))
		}
		if len(dashes)%2 == 1 { // as SVG: an odd list repeats
			dashes = append(dashes, dashes...)
		}
		c.SetDashes(0, dashes...)
	}
}

// layerOutline is a shape layer's outline, from its box's top-left
// corner (a line's start; a path's own origin), in mm.
func (p page) layerOutline(l designdoc.Layer, b box) (*canvas.Path, error) {
	switch l.Type {
	case designdoc.LineLayer:
		line := &canvas.Path{}
		line.MoveTo(0, 0)
		line.LineTo(p.doc.ToMM(l.X2-l.X), p.doc.ToMM(l.Y2-l.Y))
		return line, nil
	case designdoc.PathLayer:
		return p.pathOutline(l.SVGPath, l.ViewBox, b.w, b.h)
	case designdoc.EllipseLayer:
		return ellipse(b.w, b.h), nil
	}
	return canvas.RoundedRectangle(b.w, b.h, math.Min(p.doc.ToMM(l.Radius), math.Min(b.w, b.h)/2)), nil
}

// ellipse is the ellipse filling a w × h box from its top-left corner.
func ellipse(w, h float64) *canvas.Path {
	return canvas.Ellipse(w/2, h/2).Translate(w/2, h/2)
}

// pathOutline is SVG path data in mm: at its own size in the document's
// unit, or with viewBox stretched over a w × h box.
func (p page) pathOutline(d string, viewBox *[4]float64, w, h float64) (*canvas.Path, error) {
	path, err := canvas.ParseSVGPath(d)
	if err != nil {
		return nil, fmt.Errorf("path: %v", err)
	}
	if viewBox == nil {
		mm := p.doc.ToMM(1)
		return path.Scale(mm, mm), nil
	}
	return path.Translate(-viewBox[0], -viewBox[1]).Scale(w/viewBox[2], h/viewBox[3]), nil
}

// pivot is the point l turns about, on the page: its box's centre, but a
// text's top-left corner, a line's middle and a path's centre.
func (p page) pivot(l designdoc.Layer, b box) (float64, float64) {
	switch {
	case l.Type == designdoc.TextLayer:
		return b.x, b.y
	case l.Type == designdoc.LineLayer:
		return b.x + p.doc.ToMM(l.X2-l.X)/2, b.y + p.doc.ToMM(l.Y2-l.Y)/2
	case l.SVGPath != "" && l.ViewBox == nil:
		pb := p.pathBox(l)
		return pb.x + pb.w/2, pb.y + pb.h/2
	}
	return b.x + b.w/2, b.y + b.h/2
}

// enterGroup moves c into g's coordinates: its origin at g's x, y, turned
// by its rotation about that origin and scaled by its scale. Its layers'
// boxes (which count the bleed from the page's corner) then land in it.
func (p page) enterGroup(c *canvas.Context, g designdoc.Layer) {
	c.Translate(p.bleed+p.doc.ToMM(g.X), p.bleed+p.doc.ToMM(g.Y))
	if g.Rotation != 0 {
		c.Rotate(g.Rotation)
	}
	if g.Scale != 1 {
		c.Scale(g.Scale, g.Scale)
	}
	if g.Matrix != nil {
		c.ComposeView(p.planeMatrix(g))
	}
	c.Translate(-p.bleed, -p.bleed)
}

// planeMatrix is a group's Matrix, its offsets in mm.
func (p page) planeMatrix(g designdoc.Layer) canvas.Matrix {
	m := g.Matrix
	return canvas.Matrix{{m[0], m[2], p.doc.ToMM(m[4])}, {m[1], m[3], p.doc.ToMM(m[5])}}
}

// clipPath is l's clip in c's coordinates: from the layer's x, y (a
// group's origin), turned with it.
func (p page) clipPath(l designdoc.Layer, b box) *canvas.Path {
	s := l.Clip
	x, y := b.x, b.y
	if l.Type == designdoc.GroupLayer {
		x, y = p.bleed, p.bleed
	}
	x, y = x+p.doc.ToMM(s.X), y+p.doc.ToMM(s.Y)
	w, h := p.doc.ToMM(s.Width), p.doc.ToMM(s.Height)
	var outline *canvas.Path
	switch s.Kind {
	case designdoc.CutEllipse:
		outline = ellipse(w, h)
	case designdoc.CutPath:
		// The path parsed when the document did: it cannot fail here.
		outline, _ = p.pathOutline(s.SVGPath, s.ViewBox, w, h)
	default:
		outline = canvas.RoundedRectangle(w, h, math.Min(p.doc.ToMM(s.Radius), math.Min(w, h)/2))
	}
	return outline.Translate(x, y)
}

// gradientBox is the box a shape's gradient spans, in the coordinates its
// outline is drawn in: the layer's box from its corner, but a path drawn
// at its own size spans its own bounds, which need not start at its
// origin.
func (p page) gradientBox(l designdoc.Layer, b box) box {
	if l.Type == designdoc.PathLayer && l.ViewBox == nil {
		return box{x: p.doc.ToMM(l.PathBox[0]), y: p.doc.ToMM(l.PathBox[1]), w: b.w, h: b.h}
	}
	return box{w: b.w, h: b.h}
}

// gradientPaint is g over the box b (in the coordinates of the outline it
// fills), faded by opacity: an sRGB gradient, or one in inks when any
// stop is cmyk() or spot().
func gradientPaint(g designdoc.Gradient, b box, opacity float64, overprint bool) canvas.Paint {
	var look canvas.Gradient
	grad := make(canvas.Grad, 0, len(g.Stops))
	for _, s := range g.Stops {
		// Appended, not Add: Add replaces a stop at an equal offset, and
		// two stops at one offset are a hard edge.
		grad = append(grad, canvas.Stop{Offset: s.Offset, Color: rgba(s.Color, opacity)})
	}
	start, end, center, radius := gradientGeometry(g, b)
	if g.Radial {
		look = grad.ToRadial(center, 0, center, radius)
	} else {
		look = grad.ToLinear(start, end)
	}
	spot := g.Spot()
	if spot == "" && !g.CMYK() {
		return canvas.Paint{Gradient: look}
	}
	ink := &canvaspdf.InkGradient{Radial: g.Radial, Start: start, End: end, Center: center, Radius: radius,
		Alpha: opacity, Overprint: overprint, Look: look}
	for _, s := range g.Stops {
		ink.Offsets = append(ink.Offsets, s.Offset)
		if spot != "" {
			ink.Components = append(ink.Components, []float64{s.Color.Ink.Tint})
		} else {
			cmyk := s.ProcessInks()
			ink.Components = append(ink.Components, cmyk[:])
		}
	}
	if spot != "" {
		ink.Spot = paint(g.Stops[0].Color, 1, false).Pattern.(*canvaspdf.Ink)
	}
	return canvas.Paint{Pattern: ink}
}

// gradientGeometry places g in the box b: a linear gradient's line
// through the box's centre at its angle, long enough that its ends touch
// the box's corners (as CSS's); a radial one's centre and radius.
func gradientGeometry(g designdoc.Gradient, b box) (start, end, center canvas.Point, radius float64) {
	w, h := b.w, b.h
	center = canvas.Point{X: b.x + w/2, Y: b.y + h/2}
	if g.Radial {
		return start, end, canvas.Point{X: b.x + g.CX*w, Y: b.y + g.CY*h}, g.R * math.Max(w, h)
	}
	sin, cos := math.Sincos(g.Angle * math.Pi / 180)
	half := (math.Abs(w*cos) + math.Abs(h*sin)) / 2
	d := canvas.Point{X: cos * half, Y: sin * half}
	return center.Sub(d), center.Add(d), center, 0
}

// pointsGradientPaint is a gradient placed by its Points (a fabric
// canvas's), in the coordinates of the path it fills, mm apart per unit
// of the document: sRGB stops only, as fabric's colours are.
func pointsGradientPaint(g designdoc.Gradient, mm, opacity float64) canvas.Paint {
	grad := make(canvas.Grad, 0, len(g.Stops))
	for _, s := range g.Stops {
		grad = append(grad, canvas.Stop{Offset: s.Offset, Color: rgba(s.Color, opacity)})
	}
	pt := g.Points
	start := canvas.Point{X: pt[0] * mm, Y: pt[1] * mm}
	end := canvas.Point{X: pt[3] * mm, Y: pt[4] * mm}
	if g.Radial {
		return canvas.Paint{Gradient: grad.ToRadial(start, pt[2]*mm, end, pt[5]*mm)}
	}
	return canvas.Paint{Gradient: grad.ToLinear(start, end)}
}
