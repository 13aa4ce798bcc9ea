package designdoc

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/tdewolff/canvas"
)

// LayerType says what a layer paints.
type LayerType string

// The layer types of a document.
const (
	RectLayer    LayerType = "rect"
	EllipseLayer LayerType = "ellipse"
	LineLayer    LayerType = "line"
	PathLayer    LayerType = "path"
	TextLayer    LayerType = "text"
	ImageLayer   LayerType = "image"
	GroupLayer   LayerType = "group"
	CutLayer     LayerType = "cut"
)

// The shapes of a cut layer and of a clip.
const (
	CutRect    = "rect"
	CutEllipse = "ellipse"
	CutPath    = "path"
)

// Layer is one painted element; which fields apply depends on Type.
type Layer struct {
	Type LayerType
	// Path names the layer in errors: "surfaces[0].layers[2]".
	Path string
	// X, Y are the layer's top-left corner (a line's start, a group's
	// origin); Width, Height its box.
	X, Y, Width, Height float64
	// Rotation is in degrees, clockwise as the page is seen, about the
	// layer's centre (text: its top-left corner; a line: its middle; a
	// group: its origin).
	Rotation float64
	Opacity  float64 // 0 to 1
	// Clip, when set, is the outline outside which nothing of the layer
	// is drawn, in the layer's coordinates: from its X, Y, turning with it.
	Clip *Shape

	// Shapes (rect, ellipse, line, path).
	Fill         *Color
	FillGradient *Gradient
	Stroke       *Color
	StrokeWidth  float64
	Dash         []float64 // lengths of dashes and gaps, in the document's unit
	LineCap      string    // butt, round or square
	LineJoin     string    // miter, round or bevel
	FillRule     string    // path: nonzero or evenodd
	Radius       float64   // rect, and a cut rect: rounded corners
	X2, Y2       float64   // line: its end
	// Overprint (shapes, text): the layer's inks leave those beneath it
	// instead of knocking them out.
	Overprint bool
	// StrokeFirst paints a layer's stroke under its fill (fabric's
	// paintFirst "stroke"); a text layer has a stroke only from a fabric
	// canvas (its outlined letters).
	StrokeFirst bool
	// Shape is a cut layer's: CutRect, CutEllipse or CutPath, whose
	// outline is SVGPath, in the document's unit from X, Y. A path layer
	// has SVGPath too.
	Shape, SVGPath string
	// PathBox is SVGPath's bounding box in its own units: x0, y0, x1, y1.
	PathBox [4]float64
	// ViewBox (path): the part of SVGPath's plane that is stretched over
	// the layer's box: x, y, width, height; nil when the path is drawn at
	// its own size from X, Y.
	ViewBox *[4]float64

	TextMembers
	ImageMembers
	// Layers are a group's, in its own coordinates.
	Layers []Layer
	// Scale (group) multiplies the lengths of the group's layers.
	Scale float64
	// Matrix (group), when set, maps the group's plane after its x, y,
	// rotation and scale: [a b c d e f] as SVG's matrix(), e and f in the
	// document's unit. A fabric canvas's objects have one each (their
	// skew, flips and unequal scales); no design document member sets it.
	Matrix *[6]float64
}

// Members of every layer, and of each type.
var (
	commonMembers = []string{"type", "x", "y", "rotation", "opacity", "clip", "meta"}
	strokeMembers = []string{"stroke", "stroke_width", "dash", "line_cap", "line_join", "overprint"}
	typeMembers   = map[LayerType][]string{
		RectLayer:    withCommon(strokeMembers, "width", "height", "radius", "fill"),
		EllipseLayer: withCommon(strokeMembers, "width", "height", "fill"),
		PathLayer:    withCommon(strokeMembers, "d", "view_box", "width", "height", "fill", "fill_rule"),
		LineLayer:    {"type", "x1", "y1", "x2", "y2", "rotation", "opacity", "clip", "meta", "stroke", "stroke_width", "dash", "line_cap", "overprint"},
		TextLayer:    withCommon(textMembers),
		ImageLayer:   withCommon(imageMembers),
		GroupLayer:   withCommon(nil, "layers", "scale"),
		CutLayer:     {"type", "x", "y", "rotation", "meta", "shape", "width", "height", "radius", "path"},
	}
)

func withCommon(more []string, names ...string) []string {
	out := append(append([]string{}, commonMembers...), names...)
	return append(out, more...)
}

func (d *Document) parseLayer(raw json.RawMessage, path string, depth int, count *int) (Layer, error) {
	m, err := object(raw, path)
	if err != nil {
		return Layer{}, err
	}
	typ, err := m.text("type", "")
	if err != nil {
		return Layer{}, err
	}
	l := Layer{Type: LayerType(typ), Path: path, Opacity: 1, Scale: 1}
	known, ok := typeMembers[l.Type]
	switch {
	case typ == "":
		return l, errorf(path+".type", "is required: %s", knownTypes)
	case !ok:
		return l, errorf(path+".type", "must be a layer type (%s), got %q", knownTypes, typ)
	}
	if err := m.only("a "+typ+" layer", known); err != nil {
		return l, err
	}
	if err := d.common(&l, m); err != nil {
		return l, err
	}
	switch l.Type {
	case RectLayer:
		err = d.rect(&l, m)
	case EllipseLayer:
		err = d.ellipse(&l, m)
	case LineLayer:
		err = d.line(&l, m)
	case PathLayer:
		err = d.path(&l, m)
	case TextLayer:
		err = d.text(&l, m)
	case ImageLayer:
		err = d.image(&l, m)
	case GroupLayer:
		err = d.group(&l, m, depth, count)
	case CutLayer:
		err = d.cut(&l, m)
	}
	return l, err
}

// common reads the members every layer has.
func (d *Document) common(l *Layer, m members) error {
	var err error
	if l.X, err = d.ranged(m, "x", 0, offsetSpan); err != nil {
		return err
	}
	if l.Y, err = d.ranged(m, "y", 0, offsetSpan); err != nil {
		return err
	}
	if l.Rotation, err = m.number("rotation", 0); err != nil {
		return err
	}
	l.Rotation = normalDegrees(l.Rotation)
	if l.Opacity, err = d.ranged(m, "opacity", 1, unitSpan); err != nil {
		return err
	}
	l.Clip, err = d.optionalShape(m, "clip")
	return err
}

// box reads a layer's width and height, both required.
func (d *Document) box(l *Layer, m members) error {
	var err error
	if l.Width, err = d.requiredRanged(m, "width", extentSpan); err != nil {
		return err
	}
	l.Height, err = d.requiredRanged(m, "height", extentSpan)
	return err
}

func (d *Document) rect(l *Layer, m members) error {
	if err := d.box(l, m); err != nil {
		return err
	}
	var err error
	if l.Radius, err = d.ranged(m, "radius", 0, reachSpan); err != nil {
		return err
	}
	return d.filledShape(l, m)
}

func (d *Document) ellipse(l *Layer, m members) error {
	if err := d.box(l, m); err != nil {
		return err
	}
	return d.filledShape(l, m)
}

// line reads a line from x1, y1 to x2, y2; it has a stroke and no fill.
func (d *Document) line(l *Layer, m members) error {
	var err error
	for _, end := range []struct {
		name string
		v    *float64
	}{{"x1", &l.X}, {"y1", &l.Y}, {"x2", &l.X2}, {"y2", &l.Y2}} {
		if *end.v, err = d.ranged(m, end.name, 0, offsetSpan); err != nil {
			return err
		}
	}
	if err := d.stroke(l, m); err != nil {
		return err
	}
	if l.Stroke == nil || l.StrokeWidth == 0 {
		return errorf(l.Path, "paints nothing: give stroke and stroke_width")
	}
	return nil
}

// path reads SVG path data, drawn from x, y at its own size, or with
// view_box stretched over the box x, y, width, height.
func (d *Document) path(l *Layer, m members) error {
	var err error
	if l.SVGPath, l.PathBox, err = d.pathData(m, "d"); err != nil {
		return err
	}
	if l.ViewBox, err = viewBox(m); err != nil {
		return err
	}
	if l.ViewBox != nil {
		if err := d.box(l, m); err != nil {
			return err
		}
	} else if m.has("width") || m.has("height") {
		name := "width"
		if !m.has(name) {
			name = "height"
		}
		return errorf(m.pathOf(name), "needs view_box: the part of the path's plane stretched over width × height")
	} else {
		l.Width, l.Height = l.PathBox[2]-l.PathBox[0], l.PathBox[3]-l.PathBox[1]
	}
	if l.FillRule, err = m.choice("fill_rule", "nonzero", "evenodd"); err != nil {
		return err
	}
	if err := d.checkReach(l, m.pathOf("d")); err != nil {
		return err
	}
	return d.filledShape(l, m)
}

// checkReach keeps a path's points within the offsets any layer may
// have; member names the path data's member in errors.
func (d *Document) checkReach(l *Layer, member string) error {
	x0, y0, x1, y1 := l.X+l.PathBox[0], l.Y+l.PathBox[1], l.X+l.PathBox[2], l.Y+l.PathBox[3]
	if l.ViewBox != nil {
		x0, y0, x1, y1 = l.X, l.Y, l.X+l.Width, l.Y+l.Height
	}
	for _, v := range []float64{x0, y0, x1, y1} {
		if offsetSpan.check(d, "", v) != nil {
			return errorf(member, "reaches %v: its points must be from %s to %s %s", v,
				shortNumber(d.fromMM(-maxOffsetMM)), shortNumber(d.fromMM(maxOffsetMM)), d.Unit)
		}
	}
	return nil
}

// viewBox reads a path's view_box: [x, y, width, height].
func viewBox(m members) (*[4]float64, error) {
	list, ok, err := m.numbers("view_box")
	if err != nil || !ok {
		return nil, err
	}
	bad := len(list) != 4
	for i, v := range list {
		bad = bad || math.Abs(v) > maxViewBox || (i >= 2 && v <= 0)
	}
	if bad {
		return nil, errorf(m.pathOf("view_box"), "must be [x, y, width, height], width and height above 0, each within ±%g", float64(maxViewBox))
	}
	return &[4]float64{list[0], list[1], list[2], list[3]}, nil
}

// pathData reads and checks SVG path data, and returns its bounding box.
func (d *Document) pathData(m members, name string) (string, [4]float64, error) {
	s, err := m.text(name, "")
	path := m.pathOf(name)
	switch {
	case err != nil:
		return "", [4]float64{}, err
	case s == "":
		return "", [4]float64{}, errorf(path, "is required: SVG path data such as M 0 0 L 50 0 L 25 40 Z")
	case len(s) > maxPathBytes:
		return "", [4]float64{}, errorf(path, "must be at most %d KB, got %d KB", maxPathBytes>>10, len(s)>>10)
	}
	if d.pathBytes += len(s); d.pathBytes > maxDocPath {
		return "", [4]float64{}, errorf(path, "makes the document's path data more than %d MB", maxDocPath>>20)
	}
	p, err := canvas.ParseSVGPath(s)
	if err != nil {
		return "", [4]float64{}, errorf(path, "is not an SVG path: %s", strings.TrimPrefix(err.Error(), "bad path: "))
	}
	if p.Empty() {
		return "", [4]float64{}, errorf(path, "draws nothing")
	}
	b := p.Bounds()
	box := [4]float64{b.X0, b.Y0, b.X1, b.Y1}
	for _, v := range box {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > maxViewBox*10 {
			return "", [4]float64{}, errorf(path, "reaches %v, beyond any page", v)
		}
	}
	return s, box, nil
}

// filledShape reads the paint of a shape that may be filled.
func (d *Document) filledShape(l *Layer, m members) error {
	var err error
	if l.Fill, l.FillGradient, err = d.fill(m, "fill"); err != nil {
		return err
	}
	if err := d.stroke(l, m); err != nil {
		return err
	}
	if l.Fill == nil && l.FillGradient == nil && (l.Stroke == nil || l.StrokeWidth == 0) {
		return errorf(l.Path, "paints nothing: give fill, or stroke with stroke_width")
	}
	return nil
}

// stroke reads a shape's outline: its colour, width, dashes, caps, joins,
// and whether it overprints.
func (d *Document) stroke(l *Layer, m members) error {
	var err error
	if l.Stroke, err = m.optionalColor("stroke"); err != nil {
		return err
	}
	if l.StrokeWidth, err = d.ranged(m, "stroke_width", 0, strokeSpan); err != nil {
		return err
	}
	if l.Dash, err = d.dash(m); err != nil {
		return err
	}
	if l.LineCap, err = m.choice("line_cap", "butt", "round", "square"); err != nil {
		return err
	}
	if l.Type != LineLayer {
		if l.LineJoin, err = m.choice("line_join", "miter", "round", "bevel"); err != nil {
			return err
		}
	}
	l.Overprint, err = m.boolean("overprint")
	return err
}

// dash reads a dash pattern: lengths of dashes and gaps in turn, as SVG's
// stroke-dasharray (an odd count repeats).
func (d *Document) dash(m members) ([]float64, error) {
	list, ok, err := m.numbers("dash")
	if err != nil || !ok {
		return nil, err
	}
	path, sum := m.pathOf("dash"), 0.0
	if len(list) == 0 || len(list) > maxDash {
		return nil, errorf(path, "must hold 1 to %d lengths, got %d", maxDash, len(list))
	}
	for i, v := range list {
		if err := strokeSpan.check(d, path, v); err != nil {
			return nil, errorf(path, "lengths must be from 0 to %s %s, got %v at [%d]", shortNumber(d.fromMM(maxStrokeMM)), d.Unit, v, i)
		}
		sum += v
	}
	if sum == 0 {
		return nil, errorf(path, "must hold a length above 0")
	}
	return list, nil
}

// group reads a group: layers drawn in its own coordinates, which are
// moved to x, y, turned by rotation about that origin and scaled.
func (d *Document) group(l *Layer, m members, depth int, count *int) error {
	if depth+1 > maxDepth {
		return errorf(l.Path, "nests groups more than %d deep", maxDepth)
	}
	var err error
	if l.Scale, err = d.ranged(m, "scale", 1, scaleSpan); err != nil {
		return err
	}
	raw, ok := m.get("layers")
	if !ok {
		return errorf(m.pathOf("layers"), "is required")
	}
	l.Layers, err = d.parseLayers(raw, m.pathOf("layers"), depth+1, count)
	return err
}

// cut reads a cut layer: a rectangle (with rounded corners), an ellipse,
// or an SVG path.
func (d *Document) cut(l *Layer, m members) error {
	def := CutRect
	if m.has("path") {
		def = CutPath
	}
	shape, err := m.text("shape", def)
	if err != nil {
		return err
	}
	switch l.Shape = shape; shape {
	case CutRect, CutEllipse:
		if m.has("path") {
			return errorf(m.pathOf("path"), "applies to shape path only")
		}
		if err := d.box(l, m); err != nil {
			return err
		}
		l.Radius, err = d.ranged(m, "radius", 0, reachSpan)
		return err
	case CutPath:
		for _, name := range []string{"width", "height", "radius"} {
			if m.has(name) {
				return errorf(m.pathOf(name), "applies to shapes rect and ellipse, not path")
			}
		}
		if l.SVGPath, l.PathBox, err = d.pathData(m, "path"); err != nil {
			return err
		}
		return d.checkReach(l, m.pathOf("path"))
	}
	return errorf(m.pathOf("shape"), "must be rect, ellipse or path, got %q", shape)
}
