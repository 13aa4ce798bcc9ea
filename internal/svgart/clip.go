package svgart

import (
	"strings"

	"github.com/tdewolff/canvas"
)

// inverse is m's inverse, or the identity for a matrix without one
// (callers only pass matrices already checked to have one).
func inverse(m canvas.Matrix) canvas.Matrix {
	inv, _ := invert(m)
	return inv
}

// styleOf is n's inherited style computed down from the root: a
// clipPath's children inherit from the clipPath's ancestors, not from
// the element it clips.
func (b *builder) styleOf(n *node) (style, error) {
	if n == nil {
		return initialStyle, nil
	}
	parent, err := b.styleOf(n.parent)
	if err != nil {
		return parent, err
	}
	return b.computeStyle(n, parent)
}

// clipFor is the clip of element n, whose clip-path property is value,
// intersected with the clip n inherits. geom is n's geometry when n is a
// shape, for clipPathUnits="objectBoundingBox".
func (b *builder) clipFor(n *node, value string, sc scope, geom *canvas.Path) (*clipRegion, error) {
	if !strings.HasPrefix(value, "url(") {
		return nil, refuse(n, "clip-path=%q: only url(#clipPath) is supported; draw the clipping shape as a <clipPath>", truncate(value))
	}
	p, err := parsePaint(value)
	if err != nil || p.kind != paintRef {
		return nil, refuse(n, "clip-path=%q is malformed", truncate(value))
	}
	cp := b.t.ids[p.ref]
	if cp == nil {
		return nil, refuse(n, "clip-path refers to #%s, which is not in the file", p.ref)
	}
	if cp.name != "clipPath" {
		return nil, refuse(n, "clip-path refers to %s, which is not a <clipPath>", cp.label())
	}
	if v := cp.props["clip-path"]; v != "" && v != "none" {
		return nil, refuse(cp, "a clipPath with a clip-path of its own is not supported: combine the clipping shapes into one")
	}
	m := sc.ctm
	if cp.attrs["clipPathUnits"] == "objectBoundingBox" {
		if geom == nil {
			return nil, refuse(n, "clipPathUnits=\"objectBoundingBox\" is supported on shapes only, not on groups: use userSpaceOnUse")
		}
		r := geom.FastBounds()
		if r.W() <= 0 || r.H() <= 0 {
			return &clipRegion{path: &canvas.Path{}}, nil
		}
		m = m.Translate(r.X0, r.Y0).Scale(r.W(), r.H())
	}
	if t, ok := cp.props["transform"]; ok {
		tm, err := parseTransform(t)
		if err != nil {
			return nil, refuse(cp, "transform: %v", err)
		}
		m = m.Mul(tm)
	}
	st, err := b.styleOf(cp)
	if err != nil {
		return nil, err
	}
	union := &canvas.Path{}
	for _, c := range cp.children {
		r, err := b.clipChild(c, st, m)
		if err != nil {
			return nil, err
		}
		if r != nil {
			union = union.Append(r)
		}
	}
	if err := b.spend(cp, union); err != nil {
		return nil, err
	}
	if len(cp.children) > 1 {
		if union, err = b.boolean(cp, func() *canvas.Path { return union.Settle(canvas.NonZero) }, union); err != nil {
			return nil, err
		}
	}
	clip := &clipRegion{path: union, box: union.FastBounds()}
	return b.intersectClips(n, sc.clip, clip)
}

// clipChild is the region (art space, settled) of one child of a
// clipPath: a shape, or a <use> of a shape; nil for what adds nothing.
func (b *builder) clipChild(c *node, parent style, m canvas.Matrix) (*canvas.Path, error) {
	if b.expanded++; b.expanded > MaxExpandedElements {
		return nil, overLimit(c, "more than %d elements to draw once <use> copies are counted: simplify the artwork", MaxExpandedElements)
	}
	shape := c
	if c.name == "use" {
		ref := strings.TrimPrefix(strings.TrimSpace(c.attrs["href"]), "#")
		shape = b.t.ids[ref]
		if shape == nil {
			return nil, refuse(c, "href=\"#%s\" refers to an element that is not in the file", ref)
		}
		if !isShape(shape.name) {
			return nil, refuse(c, "a <use> inside a clipPath must refer to a shape, not %s", shape.label())
		}
	} else if !isShape(c.name) {
		return nil, nil // SVG draws only shapes, text and <use> in a clipPath
	}
	if c.props["display"] == "none" || shape.props["display"] == "none" {
		return nil, nil
	}
	for _, e := range []*node{c, shape} {
		if v := e.props["clip-path"]; v != "" && v != "none" {
			return nil, refuse(e, "clip-path inside a clipPath is not supported: combine the clipping shapes into one")
		}
	}
	st, err := b.computeStyle(c, parent)
	if err != nil {
		return nil, err
	}
	if t, ok := c.props["transform"]; ok {
		tm, err := parseTransform(t)
		if err != nil {
			return nil, refuse(c, "transform: %v", err)
		}
		m = m.Mul(tm)
	}
	if shape != c {
		x, err := b.length(c, "x", b.vb.w)
		if err != nil {
			return nil, err
		}
		y, err := b.length(c, "y", b.vb.h)
		if err != nil {
			return nil, err
		}
		m = m.Translate(x, y)
		if st, err = b.computeStyle(shape, st); err != nil {
			return nil, err
		}
		if t, ok := shape.props["transform"]; ok {
			tm, err := parseTransform(t)
			if err != nil {
				return nil, refuse(shape, "transform: %v", err)
			}
			m = m.Mul(tm)
		}
	}
	if st.hidden {
		return nil, nil
	}
	if _, ok := invert(m); !ok {
		return nil, nil
	}
	geom, err := b.shape(shape)
	if err != nil || geom == nil {
		return nil, err
	}
	r := geom.Transform(m).Flatten(canvas.Tolerance)
	if err := b.spend(c, r); err != nil {
		return nil, err
	}
	return b.boolean(c, func() *canvas.Path { return r.Settle(st.clipRule) }, r)
}
