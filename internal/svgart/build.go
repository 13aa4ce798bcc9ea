package svgart

import (
	"image/color"
	"math"
	"strings"

	"github.com/tdewolff/canvas"
)

// artExtent is the size of the art's longer side in art space, the space
// all of an Art's operations are in: the viewBox scaled so that its
// longer side is 1000 units. Path intersection flattens curves to
// canvas.Tolerance (0.01) units of the space it works in, so a fixed
// extent keeps that at 1/100 000 of the art whatever the viewBox's
// units.
const artExtent = 1000

// op is one painting operation of the art: a path filled or stroked
// with one paint.
type op struct {
	path *canvas.Path  // in paint space
	m    canvas.Matrix // paint space to art space
	fill canvas.Paint  // the paint, whether the path is filled or stroked
	rule canvas.FillRule
	// stroke, when set, strokes path natively (the PDF's own stroke
	// operator) rather than filling it.
	stroke *strokeStyle
}

// strokeStyle is a native stroke; dashes are already cut.
type strokeStyle struct {
	width  float64
	capper canvas.Capper
	joiner canvas.Joiner
}

// opaque reports whether o covers what is under it completely.
func (o *op) opaque() bool { return o.fill.IsGradient() || o.fill.Color.A == 255 }

// clipRegion is a clip in art space.
type clipRegion struct {
	path *canvas.Path // nonzero, settled
	box  canvas.Rect
	rect bool // path is exactly box
}

// scope is what an element inherits from its ancestors while the tree is
// walked.
type scope struct {
	ctm  canvas.Matrix // user space to art space
	st   style
	clip *clipRegion
}

// builder turns a checked, cascaded tree into operations.
type builder struct {
	t        *tree
	vb       viewBox // the root's, for percentages
	diag     float64
	expanded int // elements walked, copies included
	commands int // path commands, copies included
	geometry int // path commands through intersection
	uses     []*node
}

// walk draws element n (and its children) into out.
func (b *builder) walk(n *node, sc scope, out *[]op) error {
	if b.expanded++; b.expanded > MaxExpandedElements {
		return overLimit(n, "more than %d elements to draw once <use> copies are counted: simplify the artwork", MaxExpandedElements)
	}
	switch n.name {
	case "svg", "g", "use", "path", "rect", "circle", "ellipse", "line", "polyline", "polygon":
	default:
		return nil // definitions and metadata are drawn only where referenced
	}
	if n.props["display"] == "none" {
		return nil
	}
	st, err := b.computeStyle(n, sc.st)
	if err != nil {
		return err
	}
	sc.st = st
	if t, ok := n.props["transform"]; ok {
		m, err := parseTransform(t)
		if err != nil {
			return refuse(n, "transform: %v", err)
		}
		sc.ctm = sc.ctm.Mul(m)
	}
	if math.Abs(sc.ctm.Det()) < 1e-12 {
		return nil // scaled to nothing: SVG draws nothing
	}
	var geom *canvas.Path
	if isShape(n.name) {
		if geom, err = b.shape(n); err != nil || geom == nil {
			return err
		}
	}
	if cp := n.props["clip-path"]; cp != "" && cp != "none" {
		if sc.clip, err = b.clipFor(n, cp, sc, geom); err != nil {
			return err
		}
		if sc.clip.path.Empty() {
			return nil
		}
	}
	opacity := 1.0
	if v, ok := n.props["opacity"]; ok {
		if opacity, err = parseFraction(v); err != nil {
			return refuse(n, "opacity=%q: %v", truncate(v), err)
		}
	}
	if opacity == 0 {
		return nil
	}
	target := out
	var group []op
	if opacity < 1 {
		target = &group
	}
	switch {
	case geom != nil:
		err = b.paintShape(n, geom, sc, target)
	case n.name == "use":
		err = b.use(n, sc, target)
	default:
		for _, c := range n.children {
			if err = b.walk(c, sc, target); err != nil {
				break
			}
		}
	}
	if err != nil || opacity == 1 {
		return err
	}
	flat, err := b.knockout(n, group, opacity)
	*out = append(*out, flat...)
	return err
}

func isShape(name string) bool {
	switch name {
	case "path", "rect", "circle", "ellipse", "line", "polyline", "polygon":
		return true
	}
	return false
}

// paintShape adds the fill and the stroke of shape n, whose geometry in
// user space is p.
func (b *builder) paintShape(n *node, p *canvas.Path, sc scope, out *[]op) error {
	st := sc.st
	if st.hidden {
		return nil
	}
	bbox := p.FastBounds()
	if st.fill.kind != paintNone {
		ps, err := b.resolvePaint(n, st.fill, st, st.fillOpacity, bbox)
		if err != nil {
			return err
		}
		if ps != nil {
			o := op{path: p.Copy().Transform(inverse(ps.space)), m: sc.ctm.Mul(ps.space), fill: ps.paint, rule: st.fillRule}
			if err := b.add(n, o, sc.clip, out); err != nil {
				return err
			}
		}
	}
	if st.stroke.kind == paintNone || st.strokeWidth <= 0 {
		return nil
	}
	ps, err := b.resolvePaint(n, st.stroke, st, st.strokeOpacity, bbox)
	if err != nil || ps == nil {
		return err
	}
	sp := p
	if len(st.dashes) > 0 {
		sp = p.Dash(st.dashOffset, st.dashes...)
	}
	if sp.Empty() {
		return nil
	}
	stroke := &strokeStyle{st.strokeWidth, st.capper, st.joiner()}
	o := op{path: sp, m: sc.ctm, fill: ps.paint, rule: canvas.NonZero, stroke: stroke}
	if !ps.space.Equals(canvas.Identity) || !sc.ctm.IsSimilarity() {
		// The PDF strokes in the space the path is drawn in, so a stroke
		// under a non-uniform transform, or painted in a gradient's own
		// space, is outlined here, in user space, where its width is
		// defined.
		outline := b.outline(sp, stroke, sc.ctm)
		o = op{path: outline.Transform(inverse(ps.space)), m: sc.ctm.Mul(ps.space), fill: ps.paint, rule: canvas.NonZero}
	}
	return b.add(n, o, sc.clip, out)
}

// outline is the stroke of p as a filled shape, in p's space, flattened
// finely enough for art space.
func (b *builder) outline(p *canvas.Path, s *strokeStyle, ctm canvas.Matrix) *canvas.Path {
	scale := math.Sqrt(math.Abs(ctm.Det()))
	return p.Stroke(s.width, s.capper, s.joiner, canvas.Tolerance/scale)
}

// add appends o to out, clipped.
func (b *builder) add(n *node, o op, clip *clipRegion, out *[]op) error {
	if clip != nil {
		var err error
		var keep bool
		if o, keep, err = b.clipOp(n, o, clip); err != nil || !keep {
			return err
		}
	}
	*out = append(*out, o)
	return nil
}

// region is what o paints, as a nonzero filled path in art space,
// flattened to canvas.Tolerance. It is flattened here, not inside
// canvas's path intersection, so that its segments are counted against
// MaxGeometryCommands before any intersection runs.
func (b *builder) region(n *node, o op) (*canvas.Path, error) {
	p := o.path
	rule := o.rule
	if o.stroke != nil {
		p, rule = b.outline(p, o.stroke, o.m), canvas.NonZero
	}
	p = p.Copy().Transform(o.m).Flatten(canvas.Tolerance)
	if err := b.spend(n, p); err != nil {
		return nil, err
	}
	if rule == canvas.EvenOdd {
		return b.boolean(n, func() *canvas.Path { return p.Settle(canvas.EvenOdd) }, p)
	}
	return p, nil
}

// withRegion is o painting region r (art space) instead of its own path.
func withRegion(o op, r *canvas.Path) op {
	o.path, o.rule, o.stroke = r.Transform(inverse(o.m)), canvas.NonZero, nil
	return o
}

// bounds is o's extent in art space (the stroke's extent estimated from
// its width, joins and caps).
func (b *builder) bounds(o op) canvas.Rect {
	r := o.path.FastBounds()
	if o.stroke != nil {
		grow := o.stroke.width / 2
		if m, ok := o.stroke.joiner.(canvas.MiterJoiner); ok {
			grow *= math.Max(m.Limit, math.Sqrt2)
		} else {
			grow *= math.Sqrt2
		}
		r = canvas.Rect{X0: r.X0 - grow, Y0: r.Y0 - grow, X1: r.X1 + grow, Y1: r.Y1 + grow}
	}
	return r.Transform(o.m)
}

// spend counts path commands going through intersection.
func (b *builder) spend(n *node, paths ...*canvas.Path) error {
	for _, p := range paths {
		b.geometry += len(p.Data()) / 4
	}
	if b.geometry > MaxGeometryCommands {
		return overLimit(n, "clipping and group opacity need more than %d path commands of geometry: simplify the artwork, or release the clipping masks", MaxGeometryCommands)
	}
	return nil
}

// clipOp is o within clip; keep is false when nothing of o is left.
func (b *builder) clipOp(n *node, o op, clip *clipRegion) (op, bool, error) {
	r := b.bounds(o)
	if !overlaps(r, clip.box) {
		return o, false, nil
	}
	if clip.rect && inside(r, clip.box) {
		return o, true, nil
	}
	reg, err := b.region(n, o)
	if err != nil {
		return o, false, err
	}
	if err := b.spend(n, clip.path); err != nil {
		return o, false, err
	}
	if reg, err = b.boolean(n, func() *canvas.Path { return reg.And(clip.path) }, reg, clip.path); err != nil {
		return o, false, err
	}
	if reg.Empty() {
		return o, false, nil
	}
	return withRegion(o, reg), true, nil
}

func overlaps(a, c canvas.Rect) bool {
	return a.X0 < c.X1 && c.X0 < a.X1 && a.Y0 < c.Y1 && c.Y0 < a.Y1
}

func inside(a, c canvas.Rect) bool {
	const eps = 1e-9
	return a.X0 >= c.X0-eps && a.Y0 >= c.Y0-eps && a.X1 <= c.X1+eps && a.Y1 <= c.Y1+eps
}

// rectClip is a rectangular clip in art space.
func rectClip(r canvas.Rect) *clipRegion {
	p := canvas.Rectangle(r.W(), r.H()).Translate(r.X0, r.Y0)
	return &clipRegion{path: p, box: r, rect: true}
}

// intersectClips is the region inside both a and c (either may be nil).
func (b *builder) intersectClips(n *node, a, c *clipRegion) (*clipRegion, error) {
	switch {
	case a == nil:
		return c, nil
	case c == nil:
		return a, nil
	}
	if err := b.spend(n, a.path, c.path); err != nil {
		return nil, err
	}
	p, err := b.boolean(n, func() *canvas.Path { return a.path.And(c.path) }, a.path, c.path)
	if err != nil {
		return nil, err
	}
	return &clipRegion{path: p, box: p.FastBounds()}, nil
}

// knockout makes the operations of a group with opacity below 1 look as
// the group does when it is composited as one (SVG's semantics): the
// group is flattened into disjoint pieces, each painted once. Where a
// later opaque shape covers an earlier one, the earlier is cut away;
// where a later translucent flat colour covers an earlier flat colour,
// the overlap becomes a piece of their blend (source over). Every piece
// then takes the group's opacity, and since no two overlap, nothing shows
// through that should not. PDF could do this with a transparency group,
// but canvas's Renderer interface has none, and geometry keeps the
// result a plain vector drawing that any renderer prints alike. A
// gradient under group opacity is refused: canvas's PDF writer draws
// gradients without transparency.
func (b *builder) knockout(n *node, group []op, opacity float64) ([]op, error) {
	if len(group) > MaxKnockoutShapes {
		return nil, overLimit(n, "opacity on a group of more than %d shapes: flatten the transparency in your design program", MaxKnockoutShapes)
	}
	for _, o := range group {
		if o.fill.IsGradient() {
			return nil, refuse(n, "a gradient under opacity below 1: canvas's PDF writer draws gradients without transparency; flatten the transparency in your design program")
		}
	}
	var pieces []*piece
	for _, o := range group {
		l := &piece{o: o, box: b.bounds(o)}
		var blends []*piece
		for _, p := range pieces {
			if p.gone || !overlaps(p.box, l.box) {
				continue
			}
			pr, err := b.pieceRegion(n, p)
			if err != nil {
				return nil, err
			}
			lr, err := b.pieceRegion(n, l)
			if err != nil {
				return nil, err
			}
			if !l.o.opaque() {
				ov, err := b.boolean(n, func() *canvas.Path { return pr.And(lr) }, pr, lr)
				if err != nil {
					return nil, err
				}
				if ov.Empty() {
					continue
				}
				blend := p.o
				blend.fill.Color = over(l.o.fill.Color, p.o.fill.Color)
				blends = append(blends, &piece{o: blend, region: ov, box: ov.FastBounds()})
				rest, err := b.boolean(n, func() *canvas.Path { return lr.Not(pr) }, lr, pr)
				if err != nil {
					return nil, err
				}
				l.setRegion(rest)
			}
			rest, err := b.boolean(n, func() *canvas.Path { return pr.Not(lr) }, pr, lr)
			if err != nil {
				return nil, err
			}
			p.setRegion(rest)
			if err := b.spend(n, p.region, l.region); err != nil {
				return nil, err
			}
		}
		pieces = append(append(pieces, blends...), l)
	}
	out := make([]op, 0, len(pieces))
	for _, p := range pieces {
		if p.gone {
			continue
		}
		o := p.o
		if p.region != nil {
			o = withRegion(o, p.region)
		}
		o.fill.Color = scaleAlpha(o.fill.Color, opacity)
		out = append(out, o)
	}
	return out, nil
}

// piece is a part of a flattened group: an operation, cut to region
// (art space) once anything has been taken from it.
type piece struct {
	o      op
	region *canvas.Path // nil while o is whole
	box    canvas.Rect
	gone   bool
}

// pieceRegion is p's region, computed from its operation when it is
// still whole.
func (b *builder) pieceRegion(n *node, p *piece) (*canvas.Path, error) {
	if p.region == nil {
		r, err := b.region(n, p.o)
		if err != nil {
			return nil, err
		}
		p.region = r
	}
	return p.region, nil
}

// setRegion cuts p to r.
func (p *piece) setRegion(r *canvas.Path) {
	p.region, p.box, p.gone = r, r.FastBounds(), r.Empty()
}

// over is premultiplied colour src composited over dst.
func over(src, dst color.RGBA) color.RGBA {
	k := 1 - float64(src.A)/255
	mix := func(s, d uint8) uint8 { return uint8(math.Min(float64(s)+float64(d)*k+0.5, 255)) }
	return color.RGBA{mix(src.R, dst.R), mix(src.G, dst.G), mix(src.B, dst.B), mix(src.A, dst.A)}
}

// scaleAlpha multiplies a premultiplied colour's alpha.
func scaleAlpha(c color.RGBA, f float64) color.RGBA {
	return color.RGBA{uint8(float64(c.R)*f + 0.5), uint8(float64(c.G)*f + 0.5), uint8(float64(c.B)*f + 0.5), uint8(float64(c.A)*f + 0.5)}
}

// use draws the element a <use> refers to, as a child of the <use>.
func (b *builder) use(n *node, sc scope, out *[]op) error {
	ref := strings.TrimPrefix(strings.TrimSpace(n.attrs["href"]), "#")
	if ref == "" {
		return nil // no href: nothing to draw
	}
	target := b.t.ids[ref]
	if target == nil {
		return refuse(n, "href=\"#%s\" refers to an element that is not in the file", ref)
	}
	for a := n; a != nil; a = a.parent {
		if a == target {
			return refuse(n, "href=\"#%s\" refers to an element that contains this <use>", ref)
		}
	}
	for _, u := range b.uses {
		if u == n {
			return refuse(n, "href=\"#%s\" makes a loop of <use> elements", ref)
		}
	}
	if len(b.uses) >= MaxReferenceDepth {
		return overLimit(n, "<use> elements nested more than %d deep", MaxReferenceDepth)
	}
	b.uses = append(b.uses, n)
	defer func() { b.uses = b.uses[:len(b.uses)-1] }()

	x, err := b.length(n, "x", b.vb.w)
	if err != nil {
		return err
	}
	y, err := b.length(n, "y", b.vb.h)
	if err != nil {
		return err
	}
	sc.ctm = sc.ctm.Translate(x, y)
	if target.name != "symbol" {
		return b.walk(target, sc, out)
	}
	return b.symbol(n, target, sc, out)
}

// symbol draws a <symbol> through the <use> u: its viewBox is fitted to
// the viewport the <use> gives (width and height, 100% by default), and
// what overflows the viewport is clipped unless overflow is visible.
func (b *builder) symbol(u, sym *node, sc scope, out *[]op) error {
	if b.expanded++; b.expanded > MaxExpandedElements {
		return overLimit(sym, "more than %d elements to draw once <use> copies are counted: simplify the artwork", MaxExpandedElements)
	}
	if sym.props["display"] == "none" {
		return nil
	}
	st, err := b.computeStyle(sym, sc.st)
	if err != nil {
		return err
	}
	sc.st = st
	w, h := b.vb.w, b.vb.h
	for _, src := range []*node{sym, u} { // the <use>'s size wins over the symbol's
		if _, ok := src.attrs["width"]; ok {
			if w, err = b.length(src, "width", b.vb.w); err != nil {
				return err
			}
		}
		if _, ok := src.attrs["height"]; ok {
			if h, err = b.length(src, "height", b.vb.h); err != nil {
				return err
			}
		}
	}
	if w <= 0 || h <= 0 {
		return nil
	}
	if v, ok := sym.attrs["viewBox"]; ok {
		vb, err := parseViewBox(v)
		if err != nil {
			return refuse(sym, "viewBox: %v", err)
		}
		a := defaultAspect
		if v, ok := sym.attrs["preserveAspectRatio"]; ok {
			if a, err = parseAspect(v); err != nil {
				return refuse(sym, "%v", err)
			}
		}
		if ov := sym.props["overflow"]; ov != "visible" && ov != "auto" {
			box := canvas.Rect{X0: 0, Y0: 0, X1: w, Y1: h}.Transform(sc.ctm)
			var clip *clipRegion
			if sc.ctm.IsTranslation() || (sc.ctm[0][1] == 0 && sc.ctm[1][0] == 0) {
				clip = rectClip(box)
			} else {
				p := canvas.Rectangle(w, h).Transform(sc.ctm)
				clip = &clipRegion{path: p, box: p.FastBounds()}
			}
			if sc.clip, err = b.intersectClips(sym, sc.clip, clip); err != nil {
				return err
			}
		}
		sc.ctm = sc.ctm.Mul(a.fit(vb, 0, 0, w, h))
	}
	for _, c := range sym.children {
		if err := b.walk(c, sc, out); err != nil {
			return err
		}
	}
	return nil
}
