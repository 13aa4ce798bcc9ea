package designdoc

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Unit is the length unit of a document's coordinates.
type Unit string

// The units a document may use; px are pixels at the document's dpi.
const (
	Millimetre Unit = "mm"
	Inch       Unit = "in"
	Pixel      Unit = "px"
)

// Document is a parsed design document. Lengths are in its Unit; font
// sizes are in points.
type Document struct {
	Version    int
	Unit       Unit
	Width      float64
	Height     float64
	Bleed      float64
	DPI        int // 0 when the document declares none
	Background *Color
	// MissingGlyphs is "fail" (a character no font has fails the print)
	// or "warn" (it prints as nothing, with a preflight warning).
	MissingGlyphs string
	Surfaces      []Surface
	// pathBytes counts the path data read so far, against maxDocPath.
	pathBytes int
}

// Surface is one side of the product: one page of the PDF.
type Surface struct {
	Name   string
	Layers []Layer
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

// ParseConfig decodes a template_config and parses its document.
func ParseConfig(templateConfig string) (*Document, error) {
	doc, err := Decode(templateConfig)
	if err != nil {
		return nil, &Error{Msg: "template_config " + err.Error()}
	}
	return parseValid(doc)
}

// documentMembers are the members of a document's top level.
var documentMembers = []string{"version", "unit", "width", "height", "bleed", "dpi", "background", "missing_glyphs", "layers", "surfaces", "meta"}

// Parse reads a design document and reports the first problem with the
// path of the member at fault. It is the one reading of a document: the
// API refuses what it refuses, and the renderer draws what it returns.
// A member it does not know is a problem (meta holds a customiser's own
// data); one that is null counts as absent.
func Parse(doc []byte) (*Document, error) {
	root, err := rootObject(doc)
	if err != nil {
		return nil, err
	}
	return parseRoot(root)
}

// parseValid is Parse for a document Decode validated already: a
// megabyte design is not validated twice.
func parseValid(doc []byte) (*Document, error) {
	root, err := object(doc, "")
	if err != nil {
		return nil, err
	}
	return parseRoot(root)
}

func parseRoot(root members) (*Document, error) {
	if isFabric(root) {
		return parseFabric(root)
	}
	if err := root.only("the document", documentMembers); err != nil {
		return nil, err
	}
	d := &Document{Unit: Millimetre}
	if err := d.header(root); err != nil {
		return nil, err
	}
	if err := d.parseSurfaces(root); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *Document) header(root members) error {
	if _, err := root.whole("version", 1, 1, 1); err != nil {
		return errorf("version", "must be 1, got %s", abbreviate(root.m["version"]))
	}
	d.Version = 1
	unit, err := root.choice("unit", string(Millimetre), string(Inch), string(Pixel))
	if err != nil {
		return err
	}
	d.Unit = Unit(unit)
	if d.DPI, err = root.whole("dpi", 0, 1, MaxDPI); err != nil {
		return err
	}
	if d.Unit == Pixel && d.DPI == 0 {
		return errorf("dpi", "is required when unit is px: pixels need a resolution")
	}
	if d.Width, err = d.requiredRanged(root, "width", pageSpan); err != nil {
		return err
	}
	if d.Height, err = d.requiredRanged(root, "height", pageSpan); err != nil {
		return err
	}
	if d.Bleed, err = d.ranged(root, "bleed", 0, bleedSpan); err != nil {
		return err
	}
	if d.MissingGlyphs, err = root.choice("missing_glyphs", "fail", "warn"); err != nil {
		return err
	}
	d.Background, err = root.optionalColor("background")
	return err
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
	layers, hasLayers := root.get("layers")
	switch {
	case hasSurfaces && hasLayers:
		return errorf("layers", "cannot be given with surfaces: give surfaces for a product with several sides, or layers for one")
	case !hasSurfaces && !hasLayers:
		return errorf("surfaces", "is required: give surfaces, or layers for a single surface")
	case hasLayers:
		count := 0
		list, err := d.parseLayers(layers, "layers", 0, &count)
		d.Surfaces = []Surface{{Name: "front", Layers: list}}
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
		s, err := d.parseSurface(item, fmt.Sprintf("surfaces[%d]", i))
		if err != nil {
			return err
		}
		d.Surfaces = append(d.Surfaces, s)
	}
	return nil
}

var surfaceMembers = []string{"name", "layers", "meta"}

func (d *Document) parseSurface(raw json.RawMessage, path string) (Surface, error) {
	m, err := object(raw, path)
	if err != nil {
		return Surface{}, err
	}
	if err := m.only("a surface", surfaceMembers); err != nil {
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
	count := 0
	list, err := d.parseLayers(layers, path+".layers", 0, &count)
	return Surface{Name: name, Layers: list}, err
}

// parseLayers reads a list of layers at depth (0 for a surface's own),
// counting them, nested ones included, in *count.
func (d *Document) parseLayers(raw json.RawMessage, path string, depth int, count *int) ([]Layer, error) {
	list, err := array(raw, path)
	if err != nil {
		return nil, err
	}
	if *count += len(list); *count > maxLayers {
		return nil, errorf(path, "makes the surface hold more than %d layers (groups' layers included)", maxLayers)
	}
	layers := make([]Layer, 0, len(list))
	for i, item := range list {
		l, err := d.parseLayer(item, fmt.Sprintf("%s[%d]", path, i), depth, count)
		if err != nil {
			return nil, err
		}
		layers = append(layers, l)
	}
	return layers, nil
}

// Walk calls fn for every layer of the document, those inside groups
// included, in painting order.
func (d *Document) Walk(fn func(*Layer)) {
	for i := range d.Surfaces {
		walk(d.Surfaces[i].Layers, fn)
	}
}

func walk(layers []Layer, fn func(*Layer)) {
	for i := range layers {
		fn(&layers[i])
		walk(layers[i].Layers, fn)
	}
}

// Fonts lists the fonts the document's text names, each once, in the
// order they first appear.
func (d *Document) Fonts() []string {
	var names []string
	add := func(name string) {
		for _, n := range names {
			if n == name {
				return
			}
		}
		names = append(names, name)
	}
	d.Walk(func(l *Layer) {
		if l.Type != TextLayer {
			return
		}
		for _, s := range l.Spans {
			add(s.Font)
		}
	})
	return names
}

// knownTypes lists the layer types, for errors.
var knownTypes = strings.Join([]string{string(RectLayer), string(EllipseLayer), string(LineLayer), string(PathLayer),
	string(TextLayer), string(ImageLayer), string(GroupLayer), string(CutLayer)}, ", ")
