package design

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/platen-print/platen/internal/jsonscan"
)

// The documented ranges of a layer's numbers. Lengths are in millimetres
// whatever the document's unit: a layer may reach past the page (a photo
// bleeding off the edge), but not to where path arithmetic loses its
// precision or never ends, which numbers such as 1e308 make the drawing
// library do.
const (
	maxOffsetMM  = 2 * maxPageMM // x and y, either way from the trim box's corner
	maxLayerMM   = 2 * maxPageMM // width, height and radius
	maxStrokeMM  = 1_000         // stroke_width
	maxFontPoint = 10_000        // size: 3.5 m letters
	// maxCutOffsetMM bounds an image's cut_offset: the contour is traced
	// at up to 10 pixels a millimetre, on a grid the offset grows.
	maxCutOffsetMM = 50
)

// numberRange is the allowed range of one member; length members are
// compared in millimetres.
type numberRange struct {
	name     string
	min, max float64
	length   bool
	of       func(*Layer) float64
}

var layerRanges = []numberRange{
	{name: "x", min: -maxOffsetMM, max: maxOffsetMM, length: true, of: func(l *Layer) float64 { return l.X }},
	{name: "y", min: -maxOffsetMM, max: maxOffsetMM, length: true, of: func(l *Layer) float64 { return l.Y }},
	{name: "width", max: maxLayerMM, length: true, of: func(l *Layer) float64 { return l.Width }},
	{name: "height", max: maxLayerMM, length: true, of: func(l *Layer) float64 { return l.Height }},
	{name: "radius", max: maxLayerMM, length: true, of: func(l *Layer) float64 { return l.Radius }},
	{name: "stroke_width", max: maxStrokeMM, length: true, of: func(l *Layer) float64 { return l.StrokeWidth }},
	{name: "size", max: maxFontPoint, of: func(l *Layer) float64 { return l.FontSize }},
	{name: "opacity", max: 1, of: func(l *Layer) float64 { return l.Opacity }},
	{name: "cut_offset", max: maxCutOffsetMM, length: true, of: func(l *Layer) float64 { return l.CutOffset }},
}

// check reports v, a value of the member at path, when it is outside r.
func (r numberRange) check(d *Document, path string, v float64) error {
	lo, hi, unit := r.min, r.max, ""
	if r.length {
		lo, hi, unit = d.fromMM(lo), d.fromMM(hi), " "+string(d.Unit)
	}
	if r.name == "size" {
		unit = " pt"
	}
	if math.IsNaN(v) || v < lo || v > hi {
		return errorf(path, "must be from %s to %s%s, got %v", shortNumber(lo), shortNumber(hi), unit, v)
	}
	return nil
}

// checkRanges checks every ranged member of a parsed layer, and where a
// cut layer's path reaches.
func (d *Document) checkRanges(l *Layer) error {
	for _, r := range layerRanges {
		if err := r.check(d, l.Path+"."+r.name, r.of(l)); err != nil {
			return err
		}
	}
	if l.SVGPath == "" {
		return nil
	}
	reach := numberRange{min: -maxOffsetMM, max: maxOffsetMM, length: true}
	for _, v := range l.PathBox {
		if err := reach.check(d, l.Path+".path", v); err != nil {
			return errorf(l.Path+".path", "reaches %v: its points must be from %s to %s %s", v, shortNumber(d.fromMM(-maxOffsetMM)), shortNumber(d.fromMM(maxOffsetMM)), d.Unit)
		}
	}
	return nil
}

// fromMM converts millimetres to the document's unit.
func (d *Document) fromMM(mm float64) float64 { return mm / d.ToMM(1) }

func shortNumber(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// normalDegrees is a rotation taken modulo 360, so that any finite angle
// draws as its equivalent from -360 to 360.
func normalDegrees(v float64) float64 { return math.Mod(v, 360) }

// CheckBounds reports the first number of a design document outside its
// documented range: page size, bleed and dpi, and each layer's position,
// size, radius, stroke width, font size and opacity. Unlike Parse it
// passes everything else (an unknown layer type, a missing image), which
// is the renderer's to report on the print: the API refuses what can never
// be drawn safely, and accepts what may yet render.
func CheckBounds(doc []byte) error {
	if !jsonscan.Valid(doc) {
		return errorf("", "must be a JSON object")
	}
	return checkValidBounds(doc)
}

// checkValidBounds is CheckBounds for a document already known to be
// valid JSON (Decode checked it).
func checkValidBounds(doc []byte) error {
	root, err := object(doc, "")
	if err != nil {
		return err
	}
	d := boundsHeader(root)
	if err := d.checkHeaderBounds(root); err != nil {
		return err
	}
	for _, layer := range layerObjects(root) {
		if err := d.checkLayerBounds(layer); err != nil {
			return err
		}
	}
	return nil
}

// boundsHeader reads the unit and dpi lengths are measured in, falling
// back to millimetres and 300 dpi where they are missing or wrong (Parse
// refuses those; here they only scale the ranges).
func boundsHeader(root members) *Document {
	d := &Document{Unit: Millimetre, DPI: 300}
	if unit, err := root.text("unit", ""); err == nil {
		switch Unit(unit) {
		case Millimetre, Inch, Pixel:
			d.Unit = Unit(unit)
		}
	}
	if dpi, err := root.number("dpi", 0); err == nil && dpi >= 1 && dpi <= MaxDPI && dpi == math.Trunc(dpi) {
		d.DPI = int(dpi)
	}
	return d
}

var headerRanges = []numberRange{
	{name: "width", max: maxPageMM, length: true},
	{name: "height", max: maxPageMM, length: true},
	{name: "bleed", max: maxPageMM, length: true},
	{name: "dpi", min: 1, max: MaxDPI},
}

// checkHeaderBounds checks the page's numbers that are given as numbers.
func (d *Document) checkHeaderBounds(root members) error {
	if _, _, err := root.finiteNumber("version"); err != nil {
		return err
	}
	return d.checkMembers(root, headerRanges)
}

// layerObjects returns every layer of the document that is a JSON object,
// with its path; anything malformed is Parse's to report.
func layerObjects(root members) []members {
	var out []members
	add := func(raw json.RawMessage, path string) {
		list, err := array(raw, path)
		if err != nil {
			return
		}
		for i, item := range list {
			if m, err := object(item, fmt.Sprintf("%s[%d]", path, i)); err == nil {
				out = append(out, m)
			}
		}
	}
	if raw, ok := root.get("surfaces"); ok {
		surfaces, _ := array(raw, "surfaces")
		for i, s := range surfaces {
			path := fmt.Sprintf("surfaces[%d]", i)
			if m, err := object(s, path); err == nil {
				if layers, ok := m.get("layers"); ok {
					add(layers, path+".layers")
				}
			}
		}
	} else if raw, ok := root.get("layers"); ok {
		add(raw, "layers")
	}
	return out
}

// checkLayerBounds checks the ranged members a layer gives as numbers.
func (d *Document) checkLayerBounds(m members) error {
	if _, _, err := m.finiteNumber("rotation"); err != nil {
		return err
	}
	return d.checkMembers(m, layerRanges)
}

// checkMembers checks each of ranges that m gives as a number.
func (d *Document) checkMembers(m members, ranges []numberRange) error {
	for _, r := range ranges {
		v, ok, err := m.finiteNumber(r.name)
		if err != nil {
			return err
		}
		if ok {
			if err := r.check(d, m.pathOf(r.name), v); err != nil {
				return err
			}
		}
	}
	return nil
}

// finiteNumber reads a member that is a JSON number; ok is false when it
// is absent or not a number. A number beyond float64 (1e400) is an error.
func (m members) finiteNumber(name string) (v float64, ok bool, err error) {
	raw, present := m.get(name)
	if !present {
		return 0, false, nil
	}
	var n json.Number
	// json.Number takes a string holding a number too; only a number is one.
	if c := raw[0]; (c != '-' && (c < '0' || c > '9')) || json.Unmarshal(raw, &n) != nil {
		return 0, false, nil // a string or an object: Parse says what is wrong
	}
	v, err = n.Float64()
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false, errorf(m.pathOf(name), "must be a finite number, got %s", abbreviate(raw))
	}
	return v, true, nil
}
