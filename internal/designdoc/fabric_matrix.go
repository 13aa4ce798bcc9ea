package designdoc

import "math"

// matrix is a 2D affine transform as fabric and SVG write one, [a b c d e
// f]: a point x, y goes to a·x + c·y + e, b·x + d·y + f.
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

func translate(x, y float64) matrix { return matrix{1, 0, 0, 1, x, y} }

// rotate turns by deg degrees, clockwise as a page with y down is seen.
func rotate(deg float64) matrix {
	if deg == 0 {
		return identity
	}
	sin, cos := math.Sincos(deg * math.Pi / 180)
	return matrix{cos, sin, -sin, cos, 0, 0}
}

// mul is m·n: n applied first, then m (fabric's
// multiplyTransformMatrices(m, n)).
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[2]*n[1],
		m[1]*n[0] + m[3]*n[1],
		m[0]*n[2] + m[2]*n[3],
		m[1]*n[2] + m[3]*n[3],
		m[0]*n[4] + m[2]*n[5] + m[4],
		m[1]*n[4] + m[3]*n[5] + m[5],
	}
}

func (m matrix) apply(x, y float64) (float64, float64) {
	return m[0]*x + m[2]*y + m[4], m[1]*x + m[3]*y + m[5]
}

func (m matrix) det() float64 { return m[0]*m[3] - m[1]*m[2] }

// minScale is the smallest scale, in area's square root, at which an
// object or a clip is drawn: a ten-thousandth of a canvas pixel (at most
// a few nanometres on the page) is nothing, and the drawing library
// cannot invert a plane much flatter.
const minScale = 1e-4

// flat reports whether m shrinks areas to less than minScale², or to
// nothing.
func flat(m matrix) bool {
	d := math.Abs(m.det())
	return math.IsNaN(d) || d < minScale*minScale
}

// invert is m's inverse; ok is false when m flattens the plane.
func (m matrix) invert() (matrix, bool) {
	det := m.det()
	if math.Abs(det) < 1e-12 {
		return matrix{}, false
	}
	a, b, c, d := m[3]/det, -m[1]/det, -m[2]/det, m[0]/det
	return matrix{a, b, c, d, -(a*m[4] + c*m[5]), -(b*m[4] + d*m[5])}, true
}

// dimensionsMatrix is fabric's calcDimensionsMatrix: the scale (negative
// where flipped), then skewX, then skewY, each in the plane of the one
// before.
func dimensionsMatrix(sx, sy float64, flipX, flipY bool, skewX, skewY float64) matrix {
	if flipX {
		sx = -sx
	}
	if flipY {
		sy = -sy
	}
	m := matrix{sx, 0, 0, sy, 0, 0}
	if skewX != 0 {
		m = m.mul(matrix{1, 0, math.Tan(skewX * math.Pi / 180), 1, 0, 0})
	}
	if skewY != 0 {
		m = m.mul(matrix{1, math.Tan(skewY * math.Pi / 180), 0, 1, 0, 0})
	}
	return m
}

// rotateAbout turns x, y by deg degrees about cx, cy.
func rotateAbout(x, y, cx, cy, deg float64) (float64, float64) {
	m := translate(cx, cy).mul(rotate(deg)).mul(translate(-cx, -cy))
	return m.apply(x, y)
}
