package svgart

import (
	"image/color"
	"math"
	"strings"

	"github.com/tdewolff/canvas"
)

// paintSpec is a resolved paint: canvas's paint in paint space, and the
// transform from paint space to the element's user space (the identity
// except for a radial gradient that a non-uniform transform turns into
// ellipses, which canvas can only draw in the gradient's own space).
type paintSpec struct {
	paint canvas.Paint
	space canvas.Matrix
}

// invert is m's inverse; ok is false when m has none (canvas's
// Matrix.Inv panics then).
func invert(m canvas.Matrix) (canvas.Matrix, bool) {
	det := m.Det()
	if det == 0 || math.IsNaN(det) || math.IsInf(det, 0) {
		return canvas.Identity, false
	}
	return canvas.Matrix{
		{m[1][1] / det, -m[0][1] / det, (m[0][1]*m[1][2] - m[1][1]*m[0][2]) / det},
		{-m[1][0] / det, m[0][0] / det, (m[1][0]*m[0][2] - m[0][0]*m[1][2]) / det},
	}, true
}

// solid is a colour paint; nil when it is fully transparent.
func solid(c rgba, opacity float64) *paintSpec {
	if c.a*opacity <= 0 {
		return nil
	}
	return &paintSpec{paint: canvas.Paint{Color: c.premultiplied(opacity)}, space: canvas.Identity}
}

// resolvePaint turns a fill or stroke value of element n into a paint;
// nil paints nothing. bbox is n's geometry's bounding box in user space,
// for gradients in objectBoundingBox units.
func (b *builder) resolvePaint(n *node, p paint, st style, opacity float64, bbox canvas.Rect) (*paintSpec, error) {
	switch p.kind {
	case paintColor:
		return solid(p.color, opacity), nil
	case paintCurrent:
		return solid(st.color, opacity), nil
	case paintRef:
		g := b.t.ids[p.ref]
		if g == nil || (g.name != "linearGradient" && g.name != "radialGradient") {
			if p.fallback != nil {
				return b.resolvePaint(n, *p.fallback, st, opacity, bbox)
			}
			if g == nil {
				return nil, refuse(n, "url(#%s) refers to an element that is not in the file", p.ref)
			}
			return nil, refuse(n, "url(#%s) refers to %s, which is not a gradient", p.ref, g.label())
		}
		return b.gradient(n, g, st, opacity, bbox)
	}
	return nil, nil
}

// gradientChain is g and the gradients it takes attributes and stops
// from through href, nearest first.
func (b *builder) gradientChain(g *node) ([]*node, error) {
	chain := []*node{g}
	for cur := g; ; {
		ref := strings.TrimPrefix(strings.TrimSpace(cur.attrs["href"]), "#")
		next := b.t.ids[ref]
		if ref == "" || next == nil || (next.name != "linearGradient" && next.name != "radialGradient") {
			return chain, nil
		}
		for _, seen := range chain {
			if seen == next {
				return nil, refuse(g, "href makes a loop of gradients")
			}
		}
		if len(chain) >= MaxReferenceDepth {
			return nil, overLimit(g, "gradients refer to each other more than %d deep", MaxReferenceDepth)
		}
		chain = append(chain, next)
		cur = next
	}
}

// gradient resolves the gradient g used by element n.
func (b *builder) gradient(n, g *node, st style, opacity float64, bbox canvas.Rect) (*paintSpec, error) {
	chain, err := b.gradientChain(g)
	if err != nil {
		return nil, err
	}
	attr := func(name, def string) string {
		for _, c := range chain {
			if v, ok := c.attrs[name]; ok {
				return strings.TrimSpace(v)
			}
		}
		return def
	}
	if s := attr("spreadMethod", "pad"); s != "pad" {
		return nil, refuse(g, "spreadMethod=%q is not supported (only pad): expand the gradient in your design program", truncate(s))
	}
	stops, err := b.stops(chain)
	if err != nil || len(stops) == 0 {
		return nil, err // no stops: the paint is none
	}
	if opacity < 1 {
		return nil, refuse(n, "a gradient with fill-opacity or stroke-opacity below 1: canvas's PDF writer draws gradients without transparency; flatten the transparency in your design program")
	}
	if len(stops) == 1 {
		return solidStop(stops[0].Color), nil
	}
	gt := canvas.Identity
	if v := attr("gradientTransform", ""); v != "" {
		if gt, err = parseTransform(v); err != nil {
			return nil, refuse(g, "gradientTransform: %v", err)
		}
	}
	obb := attr("gradientUnits", "objectBoundingBox") != "userSpaceOnUse"
	G, refW, refH, refD := gt, b.vb.w, b.vb.h, b.diag
	if obb {
		if bbox.W() <= 0 || bbox.H() <= 0 {
			return nil, nil // SVG: a bounding-box gradient on a shape without area paints nothing
		}
		G = canvas.Identity.Translate(bbox.X0, bbox.Y0).Scale(bbox.W(), bbox.H()).Mul(gt)
		refW, refH, refD = 1, 1, 1
	}
	if _, ok := invert(G); !ok {
		return nil, nil
	}
	num := func(name, def string, ref float64) (float64, error) {
		v := attr(name, def)
		x, err := parseLength(v, ref)
		if err != nil {
			return 0, refuse(g, "%s=%q: %v", name, truncate(v), err)
		}
		return x, nil
	}
	if g.name == "linearGradient" {
		var v [4]float64
		for i, a := range []struct {
			name, def string
			ref       float64
		}{{"x1", "0%", refW}, {"y1", "0%", refH}, {"x2", "100%", refW}, {"y2", "0%", refH}} {
			if v[i], err = num(a.name, a.def, a.ref); err != nil {
				return nil, err
			}
		}
		return linear(stops, G, canvas.Point{X: v[0], Y: v[1]}, canvas.Point{X: v[2], Y: v[3]}), nil
	}
	cx, err := num("cx", "50%", refW)
	if err != nil {
		return nil, err
	}
	cy, err := num("cy", "50%", refH)
	if err != nil {
		return nil, err
	}
	r, err := num("r", "50%", refD)
	if err != nil {
		return nil, err
	}
	fx, err := num("fx", attr("cx", "50%"), refW)
	if err != nil {
		return nil, err
	}
	fy, err := num("fy", attr("cy", "50%"), refH)
	if err != nil {
		return nil, err
	}
	fr, err := num("fr", "0%", refD)
	if err != nil {
		return nil, err
	}
	return radial(stops, G, canvas.Point{X: fx, Y: fy}, fr, canvas.Point{X: cx, Y: cy}, r), nil
}

// solidStop paints a gradient that reduces to one colour.
func solidStop(c color.RGBA) *paintSpec {
	return &paintSpec{paint: canvas.Paint{Color: c}, space: canvas.Identity}
}

// stops reads the stops of the first gradient in chain that has any:
// offsets clamped and never decreasing, as SVG says, and padded with the
// end colours at 0 and 1 so every renderer extends them alike. A stop
// with any transparency is refused: canvas's PDF writer writes shadings
// without alpha.
func (b *builder) stops(chain []*node) (canvas.Grad, error) {
	for _, g := range chain {
		var grad canvas.Grad
		last := 0.0
		for _, s := range g.children {
			if s.name != "stop" {
				continue
			}
			off, err := parseFraction(s.attrs["offset"])
			if _, ok := s.attrs["offset"]; !ok {
				off, err = 0, nil
			}
			if err != nil {
				return nil, refuse(s, "offset: %v", err)
			}
			off = math.Max(off, last)
			last = off
			c, err := stopColor(s)
			if err != nil {
				return nil, err
			}
			grad = append(grad, canvas.Stop{Offset: off, Color: c})
		}
		if len(grad) == 0 {
			continue
		}
		if grad[0].Offset > 0 {
			grad = append(canvas.Grad{{Offset: 0, Color: grad[0].Color}}, grad...)
		}
		if grad[len(grad)-1].Offset < 1 {
			grad = append(grad, canvas.Stop{Offset: 1, Color: grad[len(grad)-1].Color})
		}
		return grad, nil
	}
	return nil, nil
}

// stopColor is a stop's opaque colour.
func stopColor(s *node) (color.RGBA, error) {
	c := black
	if v, ok := s.props["stop-color"]; ok {
		var err error
		c, err = parseColor(v)
		if err == errCurrentColor {
			c, err = black, nil
			if cv, ok := s.props["color"]; ok {
				c, err = parseColor(cv)
			}
		}
		if err != nil {
			return color.RGBA{}, refuse(s, "stop-color=%q: %v", truncate(v), err)
		}
	}
	a := c.a
	if v, ok := s.props["stop-opacity"]; ok {
		o, err := parseFraction(v)
		if err != nil {
			return color.RGBA{}, refuse(s, "stop-opacity=%q: %v", truncate(v), err)
		}
		a *= o
	}
	if a < 0.999 {
		return color.RGBA{}, refuse(s, "gradient stops with transparency are not supported: canvas's PDF writer draws gradients without transparency; make the stop opaque")
	}
	return c.premultiplied(1), nil
}

// linear is a linear gradient from s to e in gradient space, which G maps
// to user space. Its colour is constant along lines perpendicular to s–e
// in gradient space; under a shear or non-uniform scale those lines are
// no longer perpendicular to G(s)–G(e), so the equivalent user-space
// gradient is computed from the gradient's slope instead: the same
// colour everywhere, in user space, which canvas's gradients work in.
func linear(grad canvas.Grad, G canvas.Matrix, s, e canvas.Point) *paintSpec {
	d := e.Sub(s)
	d2 := d.Dot(d)
	if d2 == 0 {
		return solidStop(grad[len(grad)-1].Color)
	}
	inv, _ := invert(G)
	// t(u) = (inv·u − s)·d/|d|², so its gradient in user space is Lᵀd/|d|²
	// with L the linear part of inv.
	v := canvas.Point{X: (inv[0][0]*d.X + inv[1][0]*d.Y) / d2, Y: (inv[0][1]*d.X + inv[1][1]*d.Y) / d2}
	start := G.Dot(s)
	end := start.Add(v.Div(v.Dot(v)))
	return &paintSpec{paint: canvas.Paint{Gradient: grad.ToLinear(start, end)}, space: canvas.Identity}
}

// radial is a radial gradient from the focal circle (f, fr) to the
// circle (c, r), in gradient space. When G keeps circles round it is
// mapped to user space; otherwise the paint stays in gradient space
// (space = G) and the caller draws the shape there.
func radial(grad canvas.Grad, G canvas.Matrix, f canvas.Point, fr float64, c canvas.Point, r float64) *paintSpec {
	if r <= 0 {
		return solidStop(grad[len(grad)-1].Color)
	}
	if G.IsSimilarity() {
		k := math.Sqrt(math.Abs(G.Det()))
		return &paintSpec{paint: canvas.Paint{Gradient: grad.ToRadial(G.Dot(f), fr*k, G.Dot(c), r*k)}, space: canvas.Identity}
	}
	return &paintSpec{paint: canvas.Paint{Gradient: grad.ToRadial(f, fr, c, r)}, space: G}
}
