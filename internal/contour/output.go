package contour

import (
	"math"
	"strconv"

	"github.com/tdewolff/canvas"
)

// Flatten returns the path as a closed polygon (the last point repeats
// none of the first) whose chords stray at most tol from the curves.
func (p Path) Flatten(tol float64) []Point {
	pts := []Point{p.Start}
	prev := p.Start
	for i, s := range p.Segments {
		// A cubic's chord error with k equal steps is at most
		// max|B''| / (8 k²), and |B''| ≤ 6 max |Δ² control points|.
		d1 := prev.sub(s.C1.mul(2)).add(s.C2)
		d2 := s.C1.sub(s.C2.mul(2)).add(s.End)
		m := 6 * math.Max(math.Hypot(d1.X, d1.Y), math.Hypot(d2.X, d2.Y))
		k := max(1, int(math.Ceil(math.Sqrt(m/(8*tol)))))
		for j := 1; j <= k; j++ {
			if i == len(p.Segments)-1 && j == k {
				break
			}
			pts = append(pts, bezier(prev, s.C1, s.C2, s.End, float64(j)/float64(k)))
		}
		prev = s.End
	}
	return pts
}

// Area is the signed area the path encloses, exactly: positive for an
// outer contour (clockwise on screen), negative for a hole.
func (p Path) Area() float64 {
	// ½∮(x dy − y dx) over a cubic is a polynomial of degree 5 in t, which
	// three-point Gauss–Legendre integrates exactly.
	nodes := [3]float64{0.5 - math.Sqrt(0.15), 0.5, 0.5 + math.Sqrt(0.15)}
	weights := [3]float64{5.0 / 18, 8.0 / 18, 5.0 / 18}
	var a float64
	prev := p.Start
	for _, s := range p.Segments {
		for k, t := range nodes {
			pt := bezier(prev, s.C1, s.C2, s.End, t)
			u := 1 - t
			d := prev.mul(-3 * u * u).add(s.C1.mul(3 * u * (1 - 3*t))).add(s.C2.mul(3 * t * (2 - 3*t))).add(s.End.mul(3 * t * t))
			a += weights[k] * pt.cross(d)
		}
		prev = s.End
	}
	return a / 2
}

// Area is the area the contour encloses: the outer contours' less the
// holes'.
func (c *Contour) Area() float64 {
	var a float64
	for _, p := range c.Paths {
		a += p.Area()
	}
	return a
}

// CanvasPath returns the contour as a canvas path, each pixel mmPerPx
// millimetres (or whatever unit the canvas uses). With flipY, y is measured
// up from the image's bottom edge, as canvas's default coordinate system
// wants for an image drawn with its bottom-left corner at the origin. Outer
// contours stay clockwise as displayed (clockwise in y-up numbers once
// flipped), holes the other way. Fill it with canvas.NonZero or
// canvas.EvenOdd alike.
func (c *Contour) CanvasPath(mmPerPx float64, flipY bool) *canvas.Path {
	tr := func(q Point) (float64, float64) {
		if flipY {
			return q.X * mmPerPx, (float64(c.Height) - q.Y) * mmPerPx
		}
		return q.X * mmPerPx, q.Y * mmPerPx
	}
	out := &canvas.Path{}
	for _, p := range c.Paths {
		out.MoveTo(tr(p.Start))
		for _, s := range p.Segments {
			x1, y1 := tr(s.C1)
			x2, y2 := tr(s.C2)
			x, y := tr(s.End)
			out.CubeTo(x1, y1, x2, y2, x, y)
		}
		out.Close()
	}
	return out
}

// SVG returns the contour as the d attribute of an SVG path in image
// pixels, coordinates rounded to 1/1000 px, for debugging and tests.
func (c *Contour) SVG() string {
	var b []byte
	num := func(v float64) {
		b = strconv.AppendFloat(b, math.Round(v*1000)/1000, 'f', -1, 64)
	}
	pt := func(q Point) {
		num(q.X)
		b = append(b, ',')
		num(q.Y)
	}
	for i, p := range c.Paths {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, 'M')
		pt(p.Start)
		for _, s := range p.Segments {
			b = append(b, 'C')
			pt(s.C1)
			b = append(b, ' ')
			pt(s.C2)
			b = append(b, ' ')
			pt(s.End)
		}
		b = append(b, 'Z')
	}
	return string(b)
}
