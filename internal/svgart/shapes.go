package svgart

import (
	"math"

	"github.com/tdewolff/canvas"
)

// length reads a length attribute of n (0 when absent); a percentage is
// of ref.
func (b *builder) length(n *node, name string, ref float64) (float64, error) {
	v, ok := n.attrs[name]
	if !ok {
		return 0, nil
	}
	x, err := parseLength(v, ref)
	if err != nil {
		return 0, refuse(n, "%s=%q: %v", name, truncate(v), err)
	}
	return x, nil
}

// lengths reads several length attributes, each against its reference.
func (b *builder) lengths(n *node, names []string, refs []float64) ([]float64, error) {
	out := make([]float64, len(names))
	for i, name := range names {
		v, err := b.length(n, name, refs[i])
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// shape is the geometry of a basic shape or path in its user space, as
// SVG defines it (the same start point and direction, which dashes
// follow); nil when the shape draws nothing (zero size, no points).
func (b *builder) shape(n *node) (*canvas.Path, error) {
	w, h, d := b.vb.w, b.vb.h, b.diag
	var p *canvas.Path
	count := 0
	switch n.name {
	case "path":
		var err error
		p, count, err = parsePathData(n.attrs["d"])
		if err != nil {
			return nil, refuse(n, "d: the path data is malformed: %v", err)
		}
	case "rect":
		v, err := b.lengths(n, []string{"x", "y", "width", "height"}, []float64{w, h, w, h})
		if err != nil {
			return nil, err
		}
		rx, ry, err := b.radii(n, w, h)
		if err != nil {
			return nil, err
		}
		p, count = roundedRect(v[0], v[1], v[2], v[3], rx, ry), 9
	case "circle":
		v, err := b.lengths(n, []string{"cx", "cy", "r"}, []float64{w, h, d})
		if err != nil {
			return nil, err
		}
		p, count = ellipse(v[0], v[1], v[2], v[2]), 5
	case "ellipse":
		v, err := b.lengths(n, []string{"cx", "cy"}, []float64{w, h})
		if err != nil {
			return nil, err
		}
		rx, ry, err := b.radii(n, w, h)
		if err != nil {
			return nil, err
		}
		p, count = ellipse(v[0], v[1], rx, ry), 5
	case "line":
		v, err := b.lengths(n, []string{"x1", "y1", "x2", "y2"}, []float64{w, h, w, h})
		if err != nil {
			return nil, err
		}
		p = &canvas.Path{}
		p.MoveTo(v[0], v[1])
		p.LineTo(v[2], v[3])
		count = 2
	case "polyline", "polygon":
		pts, err := parseNumbersMax(n.attrs["points"], 2*(MaxPathCommands-b.commands)+1)
		if err == errTooMany {
			return nil, overLimit(n, "more than %d path commands in the drawing (copies counted): simplify the paths", MaxPathCommands)
		}
		if err != nil {
			return nil, refuse(n, "points: %v", err)
		}
		count = len(pts) / 2
		p = polyline(pts, n.name == "polygon")
	}
	if b.commands += count; b.commands > MaxPathCommands {
		return nil, overLimit(n, "more than %d path commands in the drawing (copies counted): simplify the paths", MaxPathCommands)
	}
	if p == nil || p.Empty() {
		return nil, nil
	}
	return p, nil
}

// radii reads rx and ry: either one alone stands for both ("auto").
func (b *builder) radii(n *node, w, h float64) (float64, float64, error) {
	rx, err := b.length(n, "rx", w)
	if err != nil {
		return 0, 0, err
	}
	ry, err := b.length(n, "ry", h)
	if err != nil {
		return 0, 0, err
	}
	_, hasX := n.attrs["rx"]
	_, hasY := n.attrs["ry"]
	switch {
	case hasX && !hasY:
		ry = rx
	case hasY && !hasX:
		rx = ry
	}
	if rx < 0 || ry < 0 {
		return 0, 0, refuse(n, "rx and ry may not be negative")
	}
	return rx, ry, nil
}

// roundedRect is SVG's rect path: from (x+rx, y) clockwise (in y-down
// space), each corner an elliptical arc; rx and ry are clamped to half
// the sides.
func roundedRect(x, y, w, h, rx, ry float64) *canvas.Path {
	if w <= 0 || h <= 0 {
		return nil
	}
	rx, ry = math.Min(rx, w/2), math.Min(ry, h/2)
	p := &canvas.Path{}
	if rx == 0 || ry == 0 {
		p.MoveTo(x, y)
		p.LineTo(x+w, y)
		p.LineTo(x+w, y+h)
		p.LineTo(x, y+h)
		p.Close()
		return p
	}
	p.MoveTo(x+rx, y)
	p.LineTo(x+w-rx, y)
	p.ArcTo(rx, ry, 0, false, true, x+w, y+ry)
	p.LineTo(x+w, y+h-ry)
	p.ArcTo(rx, ry, 0, false, true, x+w-rx, y+h)
	p.LineTo(x+rx, y+h)
	p.ArcTo(rx, ry, 0, false, true, x, y+h-ry)
	p.LineTo(x, y+ry)
	p.ArcTo(rx, ry, 0, false, true, x+rx, y)
	p.Close()
	return p
}

// ellipse is SVG's ellipse path: from (cx+rx, cy), through (cx, cy+ry)
// first.
func ellipse(cx, cy, rx, ry float64) *canvas.Path {
	if rx <= 0 || ry <= 0 {
		return nil
	}
	p := &canvas.Path{}
	p.MoveTo(cx+rx, cy)
	p.ArcTo(rx, ry, 0, false, true, cx, cy+ry)
	p.ArcTo(rx, ry, 0, false, true, cx-rx, cy)
	p.ArcTo(rx, ry, 0, false, true, cx, cy-ry)
	p.ArcTo(rx, ry, 0, false, true, cx+rx, cy)
	p.Close()
	return p
}

// polyline joins the points (an odd last number is dropped, as browsers
// do); a polygon is closed.
func polyline(pts []float64, closed bool) *canvas.Path {
	if len(pts) < 4 {
		return nil
	}
	p := &canvas.Path{}
	p.MoveTo(pts[0], pts[1])
	for i := 2; i+1 < len(pts); i += 2 {
		p.LineTo(pts[i], pts[i+1])
	}
	if closed {
		p.Close()
	}
	return p
}
