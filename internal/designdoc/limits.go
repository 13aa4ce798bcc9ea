package designdoc

import (
	"math"
	"strconv"
)

// Limits of one document; they bound a render's work and memory, and
// keep numbers where path arithmetic neither loses its precision nor
// never ends (numbers such as 1e308 make the drawing library do that).
// Lengths are in millimetres whatever the document's unit.
const (
	maxSurfaces   = 100
	maxLayers     = 500 // a surface's, the layers of its groups included
	maxDepth      = 8   // groups inside groups
	maxTextBytes  = 10_000
	maxSpans      = 500
	maxSrcBytes   = 32 << 20  // a data: URI of a 25 MB image, base64-encoded
	maxPathBytes  = 256 << 10 // one path's d
	maxDocPath    = 2 << 20   // every path's d in one document
	maxDash       = 16
	maxStops      = 32
	maxPageMM     = 5_000 // five metres a side
	maxOffsetMM   = 2 * maxPageMM
	maxLayerMM    = 2 * maxPageMM
	maxStrokeMM   = 1_000
	maxFontPoint  = 10_000 // 3.5 m letters
	maxLineHeight = 10     // times the size
	// Letter spacing, in thousandths of an em: from letters overlapping by
	// half to spaced five ems apart.
	minLetterSpacing = -500
	maxLetterSpacing = 5_000
	maxLines         = 1_000
	maxScale         = 100
	maxViewBox       = 1e6
	maxCropPixels    = 100_000
	// maxCutOffsetMM bounds an image's cut_offset: the contour is traced
	// at up to 10 pixels a millimetre, on a grid the offset grows.
	maxCutOffsetMM = 50
)

// MaxDPI bounds every DPI Platen accepts, the document's or the catalogue's.
const MaxDPI = 10_000

// span is the range of a number: from min to max, min itself excluded
// when above, and compared in millimetres (then shown in the document's
// unit) when length.
type span struct {
	min, max float64
	above    bool
	length   bool
	unit     string // for numbers that are not lengths: " pt"
}

var (
	offsetSpan     = span{min: -maxOffsetMM, max: maxOffsetMM, length: true}
	extentSpan     = span{max: maxLayerMM, above: true, length: true}
	reachSpan      = span{max: maxLayerMM, length: true}
	strokeSpan     = span{max: maxStrokeMM, length: true}
	pageSpan       = span{max: maxPageMM, above: true, length: true}
	bleedSpan      = span{max: maxPageMM, length: true}
	cutOffsetSpan  = span{max: maxCutOffsetMM, length: true}
	fontSizeSpan   = span{max: maxFontPoint, above: true, unit: " pt"}
	unitSpan       = span{max: 1}
	lineHeightSpan = span{max: maxLineHeight, above: true}
	letterSpan     = span{min: minLetterSpacing, max: maxLetterSpacing}
	scaleSpan      = span{max: maxScale, above: true}
)

// check reports v, a value of the member at path, when it is outside s.
func (s span) check(d *Document, path string, v float64) error {
	lo, hi, unit := s.min, s.max, s.unit
	if s.length {
		lo, hi, unit = d.fromMM(lo), d.fromMM(hi), " "+string(d.Unit)
	}
	switch {
	case s.above && (v <= lo || v > hi):
		return errorf(path, "must be above %s and at most %s%s, got %v", shortNumber(lo), shortNumber(hi), unit, v)
	case !s.above && (v < lo || v > hi):
		return errorf(path, "must be from %s to %s%s, got %v", shortNumber(lo), shortNumber(hi), unit, v)
	}
	return nil
}

// ranged reads a number within s, def when absent.
func (d *Document) ranged(m members, name string, def float64, s span) (float64, error) {
	v, ok, err := m.finiteNumber(name)
	if err != nil || !ok {
		return def, err
	}
	return v, s.check(d, m.pathOf(name), v)
}

// requiredRanged reads a number within s that must be given.
func (d *Document) requiredRanged(m members, name string, s span) (float64, error) {
	if !m.has(name) {
		return 0, errorf(m.pathOf(name), "is required")
	}
	return d.ranged(m, name, 0, s)
}

// fromMM converts millimetres to the document's unit.
func (d *Document) fromMM(mm float64) float64 { return mm / d.ToMM(1) }

func shortNumber(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// normalDegrees is a rotation taken modulo 360, so that any finite angle
// draws as its equivalent from -360 to 360.
func normalDegrees(v float64) float64 { return math.Mod(v, 360) }
