// Package contour computes die-cut contours: the closed, smooth outlines
// that sticker and DTF printers cut along, around the opaque pixels of an
// image and a chosen distance outside them.
//
// Trace thresholds the image's alpha, drops specks of dust, grows what is
// left by the offset with an exact Euclidean distance transform
// (Felzenszwalb–Huttenlocher, capped just past the offset: a dilation by a
// disc, so corners come out round), traces the boundary of the grown mask
// with marching squares interpolated on the distance field, simplifies it
// (Ramer–Douglas–Peucker, straight sides kept as lines) and smooths it into
// cubic Béziers (centripetal Catmull-Rom), checked segment by segment to
// stay within the tolerance of the traced boundary.
//
// Accuracy. The offset is measured from the artwork's antialiased edge: the
// distance to the nearest opaque pixel centre is corrected by where the
// alpha crosses the threshold beyond that centre. On an antialiased disc
// the traced boundary lies within ±0.2 px of the true offset circle, the
// smooth contour within the tolerance of that; on hard-edged art the edge
// is the pixels' own edge. Below an offset of 1 px the contour keeps ½ px
// off every opaque pixel centre along the grid, so it may run up to ½ px
// wide there. The distance transform is exact (no downsampling).
//
// What FuzzTrace checks on small random masks: every path is closed with
// finite coordinates; every opaque pixel centre is inside the contour with
// winding number 1; no point has a winding number other than 0 or 1 (the
// traced polygons never cross, and each smooth stretch keeps within a
// third of its clearance from the others, so the non-zero and the even-odd
// fill rule fill the same area); no point of a contour lies farther than
// offset + 1 px + tolerance (+ ½ px in a concave corner) from an opaque
// pixel centre.
//
// Coordinates are image pixels, y down, with (0, 0) the top-left corner of
// the image's bounds: pixel (x, y) covers [x, x+1] × [y, y+1]. An outer
// contour runs clockwise on screen (positive shoelace area in these
// coordinates); a hole runs the other way.
//
// Cost: about 4 bytes per pixel of the opaque pixels' bounding box grown
// by the offset (pooled between calls), and time linear in it; a 2000 ×
// 2000 sticker with a 20 px offset traces in about 35 ms on one core.
//
// The package only computes geometry; the renderer decides where to draw it.
package contour

import (
	"errors"
	"fmt"
	"image"
	"math"
)

// Defaults for the zero values of Options.
const (
	DefaultThreshold = 128 // alpha ≥ 128 of 255 (50 %) is opaque
	DefaultMinArea   = 16  // px²: a speck smaller than 4 × 4 px is dust
	DefaultTolerance = 0.5 // px
)

// MaxOffset bounds Options.Offset (in pixels): the grid the contour is
// traced on grows by twice the offset each way. 1024 px is 87 mm at 300 dpi.
const MaxOffset = 1024

// ErrNoOpaquePixels is returned by Trace for an image with no opaque pixel
// (or only dust): there is nothing to cut around.
var ErrNoOpaquePixels = errors.New("contour: no opaque pixels")

// ErrInvalidOptions is returned (wrapped) for options out of range.
var ErrInvalidOptions = errors.New("contour: invalid options")

// Options tunes Trace. The zero value is usable: threshold 128, no offset,
// dust under 16 px² dropped, tolerance 0.5 px.
type Options struct {
	// Threshold is the alpha (0–255, straight, not premultiplied; for 16-bit
	// images the high byte) from which a pixel is opaque. 0 means
	// DefaultThreshold; 1 makes any visible pixel opaque.
	Threshold uint8
	// Offset is how far outside the opaque pixels the contour runs, in
	// pixels (≥ 0, at most MaxOffset). It is measured from the artwork's
	// edge, where the alpha crosses the threshold (for hard-edged art, the
	// pixels' edges): an opaque rectangle grows by Offset on every side,
	// with corners rounded to radius Offset.
	Offset float64
	// MinArea is in px². An island of opaque pixels (8-connected) with fewer
	// pixels than MinArea is dropped before the offset is applied, and a
	// hole of the final contour enclosing less than MinArea is filled. 0
	// means DefaultMinArea; a negative value keeps everything.
	MinArea float64
	// Tolerance is how far, in pixels, the smooth contour may stray from the
	// traced boundary (RDP simplification and smoothing together). 0 means
	// DefaultTolerance. It is capped so that opaque pixel centres stay
	// inside: at 0.3 when Offset < 1, at 0.6 otherwise.
	Tolerance float64
}

func (o Options) normalized() (Options, error) {
	if o.Threshold == 0 {
		o.Threshold = DefaultThreshold
	}
	if math.IsNaN(o.Offset) || o.Offset < 0 || o.Offset > MaxOffset {
		return o, fmt.Errorf("%w: offset %v px is not in [0, %d]", ErrInvalidOptions, o.Offset, MaxOffset)
	}
	if math.IsNaN(o.MinArea) || math.IsInf(o.MinArea, 1) {
		return o, fmt.Errorf("%w: min area %v", ErrInvalidOptions, o.MinArea)
	}
	if o.MinArea == 0 {
		o.MinArea = DefaultMinArea
	}
	if math.IsNaN(o.Tolerance) || o.Tolerance < 0 || math.IsInf(o.Tolerance, 1) {
		return o, fmt.Errorf("%w: tolerance %v px", ErrInvalidOptions, o.Tolerance)
	}
	if o.Tolerance == 0 {
		o.Tolerance = DefaultTolerance
	}
	o.Tolerance = min(o.Tolerance, maxTolerance(o.Offset))
	return o, nil
}

// maxTolerance is the largest tolerance that keeps every opaque pixel centre
// inside the contour. Below an offset of 1 px the traced boundary keeps at
// least 0.35 px from an opaque centre (a lone pixel's diamond), and at least
// 0.7 px from 1 px on (then the four neighbours of an opaque pixel are
// inside, so the boundary only crosses the edges beyond them).
func maxTolerance(offset float64) float64 {
	if offset < 1 {
		return 0.3
	}
	return 0.6
}

// Point is a position in image pixels, y down.
type Point struct{ X, Y float64 }

func (p Point) sub(q Point) Point          { return Point{p.X - q.X, p.Y - q.Y} }
func (p Point) add(q Point) Point          { return Point{p.X + q.X, p.Y + q.Y} }
func (p Point) mul(f float64) Point        { return Point{p.X * f, p.Y * f} }
func (p Point) dot(q Point) float64        { return p.X*q.X + p.Y*q.Y }
func (p Point) cross(q Point) float64      { return p.X*q.Y - p.Y*q.X }
func (p Point) dist(q Point) float64       { return math.Hypot(p.X-q.X, p.Y-q.Y) }
func lerp(p, q Point, t float64) Point     { return Point{p.X + (q.X-p.X)*t, p.Y + (q.Y-p.Y)*t} }
func (p Point) finite() bool               { return !math.IsNaN(p.X+p.Y) && !math.IsInf(p.X+p.Y, 0) }
func (p Point) String() string             { return fmt.Sprintf("(%g, %g)", p.X, p.Y) }
func (p Point) eq(q Point, e float64) bool { return math.Abs(p.X-q.X) <= e && math.Abs(p.Y-q.Y) <= e }

// Segment is a cubic Bézier from the end of the previous segment (or the
// path's Start) through the control points C1 and C2 to End.
type Segment struct {
	C1, C2, End Point
}

// Path is one closed contour: it starts at Start and its last segment ends
// there again.
type Path struct {
	Start    Point
	Segments []Segment
	// Hole is true for a hole (counter-clockwise on screen), false for an
	// outer contour (clockwise on screen).
	Hole bool
}

// Contour is the result of Trace.
type Contour struct {
	// Paths holds the outer contours and the holes, outer contours first in
	// the order their top-most row is met, each hole after the others.
	Paths []Path
	// Width and Height are the traced image's size in pixels; CanvasPath
	// flips y against Height.
	Width, Height int
}

// Trace computes the die-cut contour of img's opaque pixels: one outer
// path per island (islands closer than twice the offset merge into one) and
// one path per hole that survives the offset. It returns ErrNoOpaquePixels
// when no opaque pixel is left after dust is dropped. It is safe for
// concurrent use.
func Trace(img image.Image, opt Options) (*Contour, error) {
	opt, err := opt.normalized()
	if err != nil {
		return nil, err
	}
	b := img.Bounds()
	out := &Contour{Width: b.Dx(), Height: b.Dy()}
	ws := getWorkspace()
	defer putWorkspace(ws)

	ws.runs = thresholdRuns(img, opt.Threshold, ws.runs[:0])
	ws.runs = dropDust(ws.runs, opt.MinArea, ws)
	if len(ws.runs) == 0 {
		return nil, ErrNoOpaquePixels
	}
	g := ws.dilate(img, ws.runs, opt.Offset, opt.Threshold)
	raw := g.trace(ws)
	kept := raw[:0]
	for _, poly := range raw {
		poly = dedupe(poly)
		if len(poly) < 3 {
			continue
		}
		// A speck of contour (a lone lattice point just inside or outside)
		// is noise, and could not keep its orientation once smoothed.
		area := polygonArea(poly)
		if math.Abs(area) < minPolygonArea || area < 0 && opt.MinArea > 0 && -area < opt.MinArea {
			continue
		}
		kept = append(kept, poly)
	}
	clear := clearances(kept, opt.Tolerance, ws)
	out.Paths = make([]Path, 0, len(kept))
	var holes []Path
	for i, poly := range kept {
		hole := polygonArea(poly) < 0
		p, ok := smoothPath(poly, clear[i], opt.Tolerance, ws)
		if !ok {
			continue
		}
		if (p.Area() < 0) != hole {
			p = polygonPath(poly) // never seen; the polygon's own winding is right
		}
		p.Hole = hole
		if hole {
			holes = append(holes, p)
		} else {
			out.Paths = append(out.Paths, p)
		}
	}
	out.Paths = append(out.Paths, holes...)
	return out, nil
}

// minPolygonArea is the area in px² under which a traced polygon is
// dropped whatever MinArea says.
const minPolygonArea = 0.01

// polygonPath is the polygon as a path of straight segments.
func polygonPath(poly []Point) Path {
	p := Path{Start: poly[0], Segments: make([]Segment, len(poly))}
	for i := range poly {
		a, b := poly[i], poly[(i+1)%len(poly)]
		p.Segments[i] = Segment{lerp(a, b, 1.0/3), lerp(a, b, 2.0/3), b}
	}
	return p
}

// polygonArea is the shoelace area of a closed polygon, positive when it
// runs clockwise on screen (y down).
func polygonArea(poly []Point) float64 {
	var s float64
	n := len(poly)
	for i := range n {
		p, q := poly[i], poly[(i+1)%n]
		s += p.X*q.Y - q.X*p.Y
	}
	return s / 2
}
