package svgart

import (
	"math"

	"github.com/tdewolff/canvas"
)

// Art is a parsed SVG document, ready to draw: a list of filled and
// stroked paths in art space (the viewBox, scaled so that its longer
// side is 1000 units).
type Art struct {
	ops    []op
	size   Size
	extent canvas.Rect // the viewBox in art space
	bounds canvas.Rect // what the ops paint, in art space
	aspect aspect      // the root's preserveAspectRatio
	// builder is what built ops, kept for Faded.
	builder *builder
}

// Size is an Art's intrinsic size in millimetres, from the root's width
// and height (at 96 px per inch), or its viewBox where they are missing.
type Size struct {
	W, H float64
}

// Aspect is the width divided by the height.
func (s Size) Aspect() float64 { return s.W / s.H }

// Parse reads an SVG document. It refuses, with an *Error naming the
// element and the reason, any document that exceeds a limit (see the
// Max… constants) or uses a feature the decision table (Features)
// refuses; everything it accepts is drawn as vectors.
func Parse(data []byte) (*Art, error) {
	t, err := readTree(data)
	if err != nil {
		return nil, err
	}
	if err := checkTree(t.root); err != nil {
		return nil, err
	}
	sh, err := readSheets(t)
	if err != nil {
		return nil, err
	}
	if err := sh.cascade(t.root); err != nil {
		return nil, err
	}
	a, vb, err := intrinsic(t.root)
	if err != nil {
		return nil, err
	}
	b := &builder{t: t, vb: vb, diag: math.Sqrt((vb.w*vb.w + vb.h*vb.h) / 2)}
	a.builder = b
	k := artExtent / math.Max(vb.w, vb.h)
	a.extent = canvas.Rect{X0: 0, Y0: 0, X1: vb.w * k, Y1: vb.h * k}
	root := scope{ctm: canvas.Identity.Scale(k, k).Translate(-vb.x, -vb.y), st: initialStyle, clip: a.viewport(vb, k)}
	if err := b.walk(t.root, root, &a.ops); err != nil {
		return nil, err
	}
	for i, o := range a.ops {
		r := b.bounds(o)
		if i == 0 {
			a.bounds = r
		} else {
			a.bounds = a.bounds.Add(r)
		}
	}
	return a, nil
}

// viewport is the root's viewport (its width and height, which
// preserveAspectRatio places the viewBox in) as a clip in art space:
// an SVG shows nothing outside it.
func (a *Art) viewport(vb viewBox, k float64) *clipRegion {
	w, h := a.size.W*pxPerMM, a.size.H*pxPerMM
	inv, ok := invert(a.aspect.fit(vb, 0, 0, w, h))
	if !ok {
		return nil
	}
	r := canvas.Rect{X0: 0, Y0: 0, X1: w, Y1: h}.Transform(inv)
	return rectClip(canvas.Rect{X0: (r.X0 - vb.x) * k, Y0: (r.Y0 - vb.y) * k, X1: (r.X1 - vb.x) * k, Y1: (r.Y1 - vb.y) * k})
}

// intrinsic reads the root's size, viewBox and preserveAspectRatio. A
// missing viewBox is the viewport (0 0 width height); a missing width or
// height follows from the viewBox, keeping its aspect ratio.
func intrinsic(root *node) (*Art, viewBox, error) {
	a := &Art{aspect: defaultAspect}
	dim := func(name string) (float64, bool, error) {
		v, ok := root.attrs[name]
		if !ok || len(v) > 0 && v[len(v)-1] == '%' || v == "auto" {
			return 0, false, nil // a percentage of an unknown viewport: as if absent
		}
		x, err := parseLength(v, 0)
		if err != nil {
			return 0, false, refuse(root, "%s=%q: %v", name, truncate(v), err)
		}
		if x <= 0 {
			return 0, false, refuse(root, "%s=%q: the drawing has no area", name, truncate(v))
		}
		return x, true, nil
	}
	w, hasW, err := dim("width")
	if err != nil {
		return nil, viewBox{}, err
	}
	h, hasH, err := dim("height")
	if err != nil {
		return nil, viewBox{}, err
	}
	var vb viewBox
	v, hasVB := root.attrs["viewBox"]
	if hasVB {
		if vb, err = parseViewBox(v); err != nil {
			return nil, viewBox{}, refuse(root, "viewBox: %v", err)
		}
	}
	if v, ok := root.attrs["preserveAspectRatio"]; ok {
		if a.aspect, err = parseAspect(v); err != nil {
			return nil, viewBox{}, refuse(root, "%v", err)
		}
	}
	switch {
	case hasW && hasH:
	case hasVB && hasW:
		h = w * vb.h / vb.w
	case hasVB && hasH:
		w = h * vb.w / vb.h
	case hasVB:
		w, h = vb.w, vb.h
	default:
		return nil, viewBox{}, refuse(root, "the SVG has neither a width and height nor a viewBox, so its size is unknown: export it with a viewBox")
	}
	if !hasVB {
		vb = viewBox{0, 0, w, h}
	}
	a.size = Size{W: w / pxPerMM, H: h / pxPerMM}
	return a, vb, nil
}

// Size is the art's intrinsic size and aspect ratio, for a layer that
// fits it into its box (cover, contain, fill).
func (a *Art) Size() Size { return a.size }

// Draw draws the art as vector paths into the box (x, y, w, h), in c's
// current coordinates (millimetres, y down, as internal/render sets up
// with canvas.CartesianIV). The box is the SVG's viewport: the viewBox is
// placed in it as the SVG's own preserveAspectRatio says (centred and
// scaled to fit by default), exactly as a browser shows an SVG image
// sized to a box, which is what the designer saw. What the SVG draws
// outside its viewport (at its intrinsic size) was clipped by Parse, as a
// browser clips it; in a box of the art's aspect ratio (Size) nothing is
// drawn outside the box, while with slice, or a box of another aspect
// ratio, the art may reach past the box, and the layer clips its frame as
// it does for a photo. A layer that wants the art stretched to its box
// whatever the SVG says uses DrawStretched.
func (a *Art) Draw(c *canvas.Context, x, y, w, h float64) {
	a.draw(c, a.aspect, x, y, w, h)
}

// DrawStretched draws the art with its viewBox stretched to the box
// (preserveAspectRatio="none"), for a layer whose fit is "fill".
func (a *Art) DrawStretched(c *canvas.Context, x, y, w, h float64) {
	a.draw(c, aspect{none: true}, x, y, w, h)
}

func (a *Art) draw(c *canvas.Context, asp aspect, x, y, w, h float64) {
	if w <= 0 || h <= 0 {
		return
	}
	ext := viewBox{0, 0, a.extent.X1, a.extent.Y1}
	m := asp.fit(ext, x, y, w, h)
	c.Push()
	defer c.Pop()
	c.ComposeView(m)
	for _, o := range a.ops {
		drawOp(c, o)
	}
}

// drawOp draws one operation on c.
func drawOp(c *canvas.Context, o op) {
	c.Push()
	defer c.Pop()
	c.ComposeView(o.m)
	st := canvas.DefaultStyle
	st.FillRule = o.rule
	if o.stroke != nil {
		st.Fill = canvas.Paint{}
		st.Stroke = o.fill
		st.StrokeWidth = o.stroke.width
		st.StrokeCapper = o.stroke.capper
		st.StrokeJoiner = o.stroke.joiner
	} else {
		st.Fill = o.fill
		st.Stroke = canvas.Paint{}
	}
	c.Style = st
	c.DrawPath(0, 0, o.path)
}

// Faded returns the art at opacity (a layer's), composited as one, as a
// group with that opacity is: where its shapes overlap, the upper one
// does not show the lower through it. It refuses, as group opacity does,
// gradients and more than MaxKnockoutShapes shapes.
func (a *Art) Faded(opacity float64) (*Art, error) {
	if opacity >= 1 {
		return a, nil
	}
	ops, err := a.builder.knockout(a.builder.t.root, a.ops, opacity)
	if err != nil {
		return nil, err
	}
	out := *a
	out.ops = ops
	return &out, nil
}
