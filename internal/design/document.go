package design

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/tdewolff/canvas"

	"github.com/platen-print/platen/internal/jsonscan"
)

// Unit is the length unit of a document's coordinates.
type Unit string

// The units a document may use; px are pixels at the document's dpi.
const (
	Millimetre Unit = "mm"
	Inch       Unit = "in"
	Pixel      Unit = "px"
)

// LayerType says what a layer paints.
type LayerType string

// The layer types the renderer knows.
const (
	ImageLayer LayerType = "image"
	TextLayer  LayerType = "text"
	RectLayer  LayerType = "rect"
	CutLayer   LayerType = "cut"
)

// The shapes of a cut layer.
const (
	CutRect    = "rect"
	CutEllipse = "ellipse"
	CutPath    = "path"
)

// Limits of one document; they bound a render's work.
const (
	maxSurfaces  = 100
	maxLayers    = 500
	maxTextBytes = 10_000
	maxSrcBytes  = 32 << 20 // a data: URI of a 25 MB image, base64-encoded
	maxPageMM    = 5_000    // five metres a side
	maxPathBytes = 64 << 10 // a cut layer's SVG path
)

// Document is a parsed design document (contract §7). Lengths are in its
// Unit; FontSize is in points.
type Document struct {
	Version    int
	Unit       Unit
	Width      float64
	Height     float64
	Bleed      float64
	DPI        int // 0 when the document declares none
	Background *Color
	Surfaces   []Surface
}

// Surface is one side of the product: one page of the PDF.
type Surface struct {
	Name   string
	Layers []Layer
}

// Layer is one painted element; which fields apply depends on Type.
type Layer struct {
	Type LayerType
	// Path names the layer in errors: "surfaces[0].layers[2]".
	Path                 string
	X, Y, Width, Height  float64
	Rotation             float64 // degrees, clockwise as the page is seen, about the layer's centre (text: its top-left corner)
	Opacity              float64 // 0 to 1
	Src                  string  // image
	Fit                  string  // image: cover, contain or fill
	Text, Font, Align    string  // text
	FontSize, LineHeight float64 // text: points, and a multiple of the size
	Color                Color   // text
	Fill, Stroke         *Color  // rect
	StrokeWidth, Radius  float64 // rect; radius: cut rect too
	// Overprint (rect, text): the layer's inks leave those beneath it
	// instead of knocking them out.
	Overprint bool
	// Shape is a cut layer's: CutRect, CutEllipse or CutPath, whose
	// outline is SVGPath, in the document's unit from X, Y.
	Shape, SVGPath string
	// PathBox is SVGPath's bounding box: x0, y0, x1, y1.
	PathBox [4]float64
	// Cut (image): a cut contour is traced CutOffset outside the image's
	// opaque pixels.
	Cut       bool
	CutOffset float64
	// Underbase (image): painted under the image's opaque pixels, its
	// inks kept beneath the image (a white underbase); nil for none.
	Underbase *Color
}

// Error is a problem at one place of the document.
type Error struct {
	Path string
	Msg  string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

func errorf(path, format string, args ...any) *Error {
	return &Error{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// ParseConfig URL-decodes a template_config and parses its document.
func ParseConfig(templateConfig string) (*Document, error) {
	doc, err := Decode(templateConfig)
	if err != nil {
		return nil, &Error{Msg: "template_config " + err.Error()}
	}
	return Parse(doc)
}

// Parse reads a design document and reports the first problem with the
// path of the member at fault. Members it does not know are ignored, as in
// the API's JSON.
func Parse(doc []byte) (*Document, error) {
	root, err := rootObject(doc)
	if err != nil {
		return nil, err
	}
	d := &Document{Unit: Millimetre}
	if err := d.header(root); err != nil {
		return nil, err
	}
	if err := d.parseSurfaces(root); err != nil {
		return nil, err
	}
	for i := range d.Surfaces {
		for j := range d.Surfaces[i].Layers {
			if err := d.checkRanges(&d.Surfaces[i].Layers[j]); err != nil {
				return nil, err
			}
		}
	}
	return d, nil
}

func (d *Document) header(root members) error {
	version, err := root.number("version", 1)
	if err != nil {
		return err
	}
	if version != 1 {
		return errorf("version", "must be 1, got %v", version)
	}
	d.Version = 1
	unit, err := root.text("unit", string(Millimetre))
	if err != nil {
		return err
	}
	switch d.Unit = Unit(unit); d.Unit {
	case Millimetre, Inch, Pixel:
	default:
		return errorf("unit", "must be mm, in or px, got %q", unit)
	}
	if err := d.size(root); err != nil {
		return err
	}
	if err := root.optionalNumber("dpi", func(v float64) error {
		if v != math.Trunc(v) || v < 1 || v > MaxDPI {
			return errorf("dpi", "must be a whole number from 1 to %d, got %v", MaxDPI, v)
		}
		d.DPI = int(v)
		return nil
	}); err != nil {
		return err
	}
	if d.Unit == Pixel && d.DPI == 0 {
		return errorf("dpi", "is required when unit is px: pixels need a resolution")
	}
	if err := d.checkPageSize(); err != nil {
		return err
	}
	background, err := root.optionalColor("background")
	d.Background = background
	return err
}

func (d *Document) size(root members) error {
	var err error
	if d.Width, err = root.positive("width"); err != nil {
		return err
	}
	if d.Height, err = root.positive("height"); err != nil {
		return err
	}
	if d.Bleed, err = root.number("bleed", 0); err != nil {
		return err
	}
	if d.Bleed < 0 {
		return errorf("bleed", "must not be negative, got %v", d.Bleed)
	}
	return nil
}

func (d *Document) checkPageSize() error {
	for _, side := range []struct {
		name string
		v    float64
	}{{"width", d.Width}, {"height", d.Height}, {"bleed", d.Bleed}} {
		if mm := d.ToMM(side.v); mm > maxPageMM {
			return errorf(side.name, "is %.0f mm, over the %d mm limit", mm, maxPageMM)
		}
	}
	return nil
}

// ToMM converts a length of the document's unit to millimetres.
func (d *Document) ToMM(v float64) float64 {
	switch d.Unit {
	case Inch:
		return v * 25.4
	case Pixel:
		return v * 25.4 / float64(d.DPI)
	}
	return v
}

// parseSurfaces reads surfaces, or top-level layers as one surface.
func (d *Document) parseSurfaces(root members) error {
	raw, hasSurfaces := root.get("surfaces")
	if !hasSurfaces {
		layers, ok := root.get("layers")
		if !ok {
			return errorf("surfaces", "is required: give surfaces, or layers for a single surface")
		}
		s, err := parseLayers(layers, "layers")
		d.Surfaces = []Surface{{Name: "front", Layers: s}}
		return err
	}
	list, err := array(raw, "surfaces")
	if err != nil {
		return err
	}
	switch {
	case len(list) == 0:
		return errorf("surfaces", "must hold at least one surface")
	case len(list) > maxSurfaces:
		return errorf("surfaces", "must hold at most %d surfaces, got %d", maxSurfaces, len(list))
	}
	for i, item := range list {
		s, err := parseSurface(item, fmt.Sprintf("surfaces[%d]", i))
		if err != nil {
			return err
		}
		d.Surfaces = append(d.Surfaces, s)
	}
	return nil
}

func parseSurface(raw json.RawMessage, path string) (Surface, error) {
	m, err := object(raw, path)
	if err != nil {
		return Surface{}, err
	}
	name, err := m.text("name", "")
	if err != nil {
		return Surface{}, err
	}
	layers, ok := m.get("layers")
	if !ok {
		return Surface{}, errorf(path+".layers", "is required")
	}
	list, err := parseLayers(layers, path+".layers")
	return Surface{Name: name, Layers: list}, err
}

func parseLayers(raw json.RawMessage, path string) ([]Layer, error) {
	list, err := array(raw, path)
	if err != nil {
		return nil, err
	}
	if len(list) > maxLayers {
		return nil, errorf(path, "must hold at most %d layers, got %d", maxLayers, len(list))
	}
	layers := make([]Layer, 0, len(list))
	for i, item := range list {
		l, err := parseLayer(item, fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, err
		}
		layers = append(layers, l)
	}
	return layers, nil
}

func parseLayer(raw json.RawMessage, path string) (Layer, error) {
	m, err := object(raw, path)
	if err != nil {
		return Layer{}, err
	}
	typ, err := m.text("type", "")
	if err != nil {
		return Layer{}, err
	}
	l := Layer{Type: LayerType(typ), Path: path}
	if err := l.box(m); err != nil {
		return Layer{}, err
	}
	switch l.Type {
	case ImageLayer:
		err = l.image(m)
	case TextLayer:
		err = l.text(m)
	case RectLayer:
		err = l.rect(m)
	case CutLayer:
		err = l.cut(m)
	case "":
		err = errorf(path+".type", "is required: image, text, rect or cut")
	default:
		err = errorf(path, "unknown layer type %q (known: image, text, rect, cut)", typ)
	}
	return l, err
}

// box reads the members every layer has.
func (l *Layer) box(m members) error {
	var err error
	if l.X, err = m.number("x", 0); err != nil {
		return err
	}
	if l.Y, err = m.number("y", 0); err != nil {
		return err
	}
	if l.Rotation, err = m.number("rotation", 0); err != nil {
		return err
	}
	l.Rotation = normalDegrees(l.Rotation)
	if l.Opacity, err = m.number("opacity", 1); err != nil {
		return err
	}
	if l.Opacity < 0 || l.Opacity > 1 {
		return errorf(l.Path+".opacity", "must be from 0 to 1, got %v", l.Opacity)
	}
	return nil
}

func (l *Layer) image(m members) error {
	var err error
	if l.Src, err = m.text("src", ""); err != nil {
		return err
	}
	switch {
	case l.Src == "":
		return errorf(l.Path+".src", "is required: an http(s) or data: URL of a PNG, JPEG or WebP image")
	case len(l.Src) > maxSrcBytes:
		return errorf(l.Path+".src", "is over %d MB", maxSrcBytes>>20)
	case !strings.HasPrefix(l.Src, "http://") && !strings.HasPrefix(l.Src, "https://") && !strings.HasPrefix(l.Src, "data:"):
		return errorf(l.Path+".src", "must be an http(s) or data: URL")
	}
	if l.Width, err = m.positive("width"); err != nil {
		return err
	}
	if l.Height, err = m.positive("height"); err != nil {
		return err
	}
	if l.Fit, err = m.text("fit", "cover"); err != nil {
		return err
	}
	switch l.Fit {
	case "cover", "contain", "fill":
	default:
		return errorf(l.Path+".fit", "must be cover, contain or fill, got %q", l.Fit)
	}
	return l.imageInks(m)
}

// imageInks reads what an image adds for a die-cut sticker: its cut
// contour and its underbase.
func (l *Layer) imageInks(m members) error {
	var err error
	if _, l.Cut = m.get("cut_offset"); l.Cut {
		if l.CutOffset, err = m.number("cut_offset", 0); err != nil {
			return err
		}
	}
	l.Underbase, err = m.optionalColor("underbase")
	return err
}

func (l *Layer) text(m members) error {
	var err error
	if l.Text, err = m.text("text", ""); err != nil {
		return err
	}
	if len(l.Text) > maxTextBytes {
		return errorf(l.Path+".text", "must be at most %d bytes", maxTextBytes)
	}
	if l.Font, err = m.text("font", "Go-Regular"); err != nil {
		return err
	}
	if l.FontSize, err = m.positive("size"); err != nil {
		return err
	}
	if l.Width, err = m.number("width", 0); err != nil {
		return err
	}
	if l.Width < 0 {
		return errorf(l.Path+".width", "must not be negative, got %v", l.Width)
	}
	color, err := m.optionalColor("color")
	if err != nil {
		return err
	}
	l.Color = Color{A: 255}
	if color != nil {
		l.Color = *color
	}
	if l.Overprint, err = m.boolean("overprint"); err != nil {
		return err
	}
	if l.Align, err = m.text("align", "left"); err != nil {
		return err
	}
	switch l.Align {
	case "left", "center", "right":
		return nil
	}
	return errorf(l.Path+".align", "must be left, center or right, got %q", l.Align)
}

func (l *Layer) rect(m members) error {
	var err error
	if l.Width, err = m.positive("width"); err != nil {
		return err
	}
	if l.Height, err = m.positive("height"); err != nil {
		return err
	}
	if l.Fill, err = m.optionalColor("fill"); err != nil {
		return err
	}
	if l.Stroke, err = m.optionalColor("stroke"); err != nil {
		return err
	}
	if l.StrokeWidth, err = m.number("stroke_width", 0); err != nil {
		return err
	}
	if l.Radius, err = m.number("radius", 0); err != nil {
		return err
	}
	for name, v := range map[string]float64{"stroke_width": l.StrokeWidth, "radius": l.Radius} {
		if v < 0 {
			return errorf(l.Path+"."+name, "must not be negative, got %v", v)
		}
	}
	if l.Fill == nil && (l.Stroke == nil || l.StrokeWidth == 0) {
		return errorf(l.Path, "paints nothing: give fill, or stroke with stroke_width")
	}
	l.Overprint, err = m.boolean("overprint")
	return err
}

// cut reads a cut layer: a rectangle (with rounded corners), an ellipse,
// or an SVG path.
func (l *Layer) cut(m members) error {
	var err error
	if l.SVGPath, err = m.text("path", ""); err != nil {
		return err
	}
	def := CutRect
	if l.SVGPath != "" {
		def = CutPath
	}
	if l.Shape, err = m.text("shape", def); err != nil {
		return err
	}
	switch l.Shape {
	case CutRect, CutEllipse:
		return l.cutBox(m)
	case CutPath:
		return l.cutPath()
	}
	return errorf(l.Path+".shape", "must be rect, ellipse or path, got %q", l.Shape)
}

func (l *Layer) cutBox(m members) error {
	var err error
	if l.Width, err = m.positive("width"); err != nil {
		return err
	}
	if l.Height, err = m.positive("height"); err != nil {
		return err
	}
	if l.Radius, err = m.number("radius", 0); err != nil {
		return err
	}
	if l.Radius < 0 {
		return errorf(l.Path+".radius", "must not be negative, got %v", l.Radius)
	}
	return nil
}

// cutPath checks a cut layer's SVG path and notes its bounding box.
func (l *Layer) cutPath() error {
	switch {
	case l.SVGPath == "":
		return errorf(l.Path+".path", "is required for shape path: an SVG path such as M 0 0 L 50 0 L 25 40 Z")
	case len(l.SVGPath) > maxPathBytes:
		return errorf(l.Path+".path", "must be at most %d bytes", maxPathBytes)
	}
	p, err := canvas.ParseSVGPath(l.SVGPath)
	if err != nil {
		return errorf(l.Path+".path", "is not an SVG path: %s", strings.TrimPrefix(err.Error(), "bad path: "))
	}
	if p.Empty() {
		return errorf(l.Path+".path", "draws nothing")
	}
	b := p.Bounds()
	l.PathBox = [4]float64{b.X0, b.Y0, b.X1, b.Y1}
	return nil
}

// members is a JSON object's members with the object's path, for errors.
type members struct {
	path string
	m    map[string]json.RawMessage
}

func (m members) pathOf(name string) string {
	if m.path == "" {
		return name
	}
	return m.path + "." + name
}

func (m members) get(name string) (json.RawMessage, bool) {
	raw, ok := m.m[name]
	if !ok || isNull(raw) {
		return nil, false
	}
	return raw, true
}

// rootObject is object for a whole document: it validates it once, which
// lets every level below it be split without validating again.
func rootObject(doc []byte) (members, error) {
	if !jsonscan.Valid(doc) {
		return members{}, errorf("", "must be a JSON object")
	}
	return object(doc, "")
}

// object splits raw, a value inside a document rootObject validated, into
// its members.
func object(raw json.RawMessage, path string) (members, error) {
	m, ok := jsonscan.Object(raw)
	if isNull(raw) || !ok {
		return members{}, errorf(path, "must be a JSON object")
	}
	return members{path: path, m: m}, nil
}

// array splits raw, a value inside a document rootObject validated, into
// its elements.
func array(raw json.RawMessage, path string) ([]json.RawMessage, error) {
	list, ok := jsonscan.Array(raw)
	if isNull(raw) || !ok {
		return nil, errorf(path, "must be an array")
	}
	return list, nil
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// number reads a finite number, def when absent or null.
func (m members) number(name string, def float64) (float64, error) {
	raw, ok := m.get(name)
	if !ok {
		return def, nil
	}
	v, ok, err := m.finiteNumber(name)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, errorf(m.pathOf(name), "must be a number, got %s", abbreviate(raw))
	}
	return v, nil
}

func (m members) optionalNumber(name string, use func(float64) error) error {
	if _, ok := m.get(name); !ok {
		return nil
	}
	v, err := m.number(name, 0)
	if err != nil {
		return err
	}
	return use(v)
}

// positive reads a required number above zero.
func (m members) positive(name string) (float64, error) {
	if _, ok := m.get(name); !ok {
		return 0, errorf(m.pathOf(name), "is required")
	}
	v, err := m.number(name, 0)
	if err != nil {
		return 0, err
	}
	if v <= 0 {
		return 0, errorf(m.pathOf(name), "must be positive, got %v", v)
	}
	return v, nil
}

// boolean reads true or false, false when absent or null.
func (m members) boolean(name string) (bool, error) {
	raw, ok := m.get(name)
	if !ok {
		return false, nil
	}
	var v bool
	if json.Unmarshal(raw, &v) != nil {
		return false, errorf(m.pathOf(name), "must be true or false, got %s", abbreviate(raw))
	}
	return v, nil
}

func (m members) text(name, def string) (string, error) {
	raw, ok := m.get(name)
	if !ok {
		return def, nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", errorf(m.pathOf(name), "must be a string, got %s", abbreviate(raw))
	}
	return s, nil
}

// abbreviate shows a JSON value in an error, cut short when long.
func abbreviate(raw json.RawMessage) string {
	s := string(bytes.TrimSpace(raw))
	if len(s) > 40 {
		return s[:37] + "…"
	}
	return s
}
