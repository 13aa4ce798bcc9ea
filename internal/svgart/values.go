package svgart

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"github.com/tdewolff/canvas"
	"golang.org/x/image/colornames"
)

// maxCoordinate bounds every number read: a logo's coordinates are far
// smaller, and the bound keeps sums and products of coordinates finite.
const maxCoordinate = 1e9

// pxPerMM converts CSS pixels (1/96 in) to millimetres' reciprocal.
const pxPerMM = 96 / 25.4

// scanNumber reads one SVG number from the start of s (sign, digits,
// fraction, exponent: no hexadecimal, Inf or NaN, which strconv would
// accept) and returns it and the bytes it took; n is 0 when s does not
// start with a number.
func scanNumber(s string) (v float64, n int, err error) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0, nil
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && s[j] >= '0' && s[j] <= '9' {
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			i = j
		}
	}
	v, err = strconv.ParseFloat(s[:i], 64)
	if err != nil || math.Abs(v) > maxCoordinate {
		return 0, i, fmt.Errorf("the number %s is out of range", s[:i])
	}
	return v, i, nil
}

// isSep reports whether c separates numbers in a list.
func isSep(c byte) bool {
	return c == ' ' || c == ',' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// parseNumbers reads a list of numbers separated by white space and/or a
// comma ("10,20 30 -4e1").
func parseNumbers(s string) ([]float64, error) { return parseNumbersMax(s, -1) }

// errTooMany is parseNumbersMax's answer for a list longer than its max.
var errTooMany = errors.New("too many numbers")

// parseNumbersMax is parseNumbers for a list of at most max numbers
// (max < 0: any): it counts before it allocates, so a hostile list is
// refused without being held.
func parseNumbersMax(s string, max int) ([]float64, error) {
	if max >= 0 {
		n, err := countNumbers(s)
		if err != nil {
			return nil, err
		}
		if n > max {
			return nil, errTooMany
		}
	}
	var out []float64
	for i := 0; ; {
		for i < len(s) && isSep(s[i]) {
			i++
		}
		if i == len(s) {
			return out, nil
		}
		v, n, err := scanNumber(s[i:])
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, fmt.Errorf("%q is not a list of numbers", truncate(s))
		}
		out = append(out, v)
		i += n
	}
}

// countNumbers counts the numbers of a list, checking its syntax.
func countNumbers(s string) (int, error) {
	count := 0
	for i := 0; ; count++ {
		for i < len(s) && isSep(s[i]) {
			i++
		}
		if i == len(s) {
			return count, nil
		}
		_, n, err := scanNumber(s[i:])
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, fmt.Errorf("%q is not a list of numbers", truncate(s))
		}
		i += n
	}
}

// parseNumber reads one number, alone.
func parseNumber(s string) (float64, error) {
	s = strings.TrimSpace(s)
	v, n, err := scanNumber(s)
	if err != nil {
		return 0, err
	}
	if n == 0 || n != len(s) {
		return 0, fmt.Errorf("%q is not a number", truncate(s))
	}
	return v, nil
}

// parseFraction reads an opacity or offset: a number or a percentage,
// clamped to [0, 1].
func parseFraction(s string) (float64, error) {
	s = strings.TrimSpace(s)
	scale := 1.0
	if strings.HasSuffix(s, "%") {
		s, scale = s[:len(s)-1], 0.01
	}
	v, err := parseNumber(s)
	return math.Min(math.Max(v*scale, 0), 1), err
}

// parseLength reads a length in user units (CSS pixels); a percentage is
// of ref. Absolute units are converted at 96 px per inch, as SVG defines.
func parseLength(s string, ref float64) (float64, error) {
	s = strings.TrimSpace(s)
	v, n, err := scanNumber(s)
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, fmt.Errorf("%q is not a length", truncate(s))
	}
	switch unit := strings.ToLower(s[n:]); unit {
	case "", "px":
		return v, nil
	case "%":
		return v / 100 * ref, nil
	case "mm":
		return v * pxPerMM, nil
	case "cm":
		return v * 10 * pxPerMM, nil
	case "q":
		return v / 4 * pxPerMM, nil
	case "in":
		return v * 96, nil
	case "pt":
		return v * 96 / 72, nil
	case "pc":
		return v * 16, nil
	case "em":
		return v * 16, nil // the initial font size: text is refused, so nothing sets another
	case "ex":
		return v * 8, nil
	default:
		return 0, fmt.Errorf("the unit %q is not supported (use px, mm, cm, in, pt, pc or %%)", unit)
	}
}

// truncate shortens a value quoted in an error.
func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// rgba is a straight (not premultiplied) sRGB colour with alpha in [0, 1].
type rgba struct {
	r, g, b uint8
	a       float64
}

// premultiplied is c with its alpha times opacity, as canvas wants it.
func (c rgba) premultiplied(opacity float64) color.RGBA {
	a := c.a * opacity
	return color.RGBA{uint8(float64(c.r)*a + 0.5), uint8(float64(c.g)*a + 0.5), uint8(float64(c.b)*a + 0.5), uint8(a*255 + 0.5)}
}

var black = rgba{0, 0, 0, 1}

// errCurrentColor is parseColor's answer for currentColor, which only
// the caller can resolve.
var errCurrentColor = errors.New("currentColor")

// parseColor reads a CSS colour: a name, #rgb, #rgba, #rrggbb,
// #rrggbbaa, rgb()/rgba() and hsl()/hsla() with commas or spaces and an
// optional "/ alpha", or transparent.
func parseColor(s string) (rgba, error) {
	s = strings.TrimSpace(s)
	lower := strings.ToLower(s)
	switch {
	case lower == "currentcolor":
		return rgba{}, errCurrentColor
	case lower == "transparent":
		return rgba{}, nil
	case strings.HasPrefix(s, "#"):
		return parseHex(s[1:])
	case strings.HasPrefix(lower, "rgb(") || strings.HasPrefix(lower, "rgba("):
		return parseFunctional(lower, false)
	case strings.HasPrefix(lower, "hsl(") || strings.HasPrefix(lower, "hsla("):
		return parseFunctional(lower, true)
	}
	if c, ok := colornames.Map[lower]; ok {
		return rgba{c.R, c.G, c.B, 1}, nil
	}
	return rgba{}, fmt.Errorf("%q is not a colour", truncate(s))
}

// parseHex reads the digits of a hexadecimal colour.
func parseHex(h string) (rgba, error) {
	digit := func(i int) (uint8, bool) {
		v, err := strconv.ParseUint(h[i:i+1], 16, 8)
		return uint8(v), err == nil
	}
	var d [8]uint8
	for i := range h {
		if i >= len(d) {
			break
		}
		v, ok := digit(i)
		if !ok {
			return rgba{}, fmt.Errorf("#%s is not a colour", truncate(h))
		}
		d[i] = v
	}
	switch len(h) {
	case 3, 4:
		c := rgba{d[0] * 17, d[1] * 17, d[2] * 17, 1}
		if len(h) == 4 {
			c.a = float64(d[3]*17) / 255
		}
		return c, nil
	case 6, 8:
		c := rgba{d[0]<<4 | d[1], d[2]<<4 | d[3], d[4]<<4 | d[5], 1}
		if len(h) == 8 {
			c.a = float64(d[6]<<4|d[7]) / 255
		}
		return c, nil
	}
	return rgba{}, fmt.Errorf("#%s is not a colour", truncate(h))
}

// parseFunctional reads rgb(), rgba(), hsl() and hsla().
func parseFunctional(s string, hsl bool) (rgba, error) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if end != len(s)-1 {
		return rgba{}, fmt.Errorf("%q is not a colour", truncate(s))
	}
	args := strings.FieldsFunc(strings.ReplaceAll(s[open+1:end], "/", " / "), func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
	alpha := 1.0
	if n := len(args); n == 5 && args[3] == "/" || n == 4 {
		a, err := parseFraction(args[n-1])
		if err != nil {
			return rgba{}, err
		}
		alpha, args = a, args[:3]
	}
	if len(args) != 3 {
		return rgba{}, fmt.Errorf("%q is not a colour", truncate(s))
	}
	var v [3]float64
	for i, a := range args {
		if hsl && i == 0 {
			a = strings.TrimSuffix(a, "deg")
		}
		pct := strings.HasSuffix(a, "%")
		x, err := parseNumber(strings.TrimSuffix(a, "%"))
		if err != nil {
			return rgba{}, err
		}
		switch {
		case hsl && i > 0:
			x /= 100
		case pct:
			x = x * 255 / 100 // not x * 2.55, which makes 50% 127.4999… and rounds it down
		}
		v[i] = x
	}
	if hsl {
		return hslColor(v[0], v[1], v[2], alpha), nil
	}
	return rgba{clampByte(v[0]), clampByte(v[1]), clampByte(v[2]), alpha}, nil
}

// clampByte rounds a colour component into 0..255.
func clampByte(x float64) uint8 { return uint8(math.Min(math.Max(x, 0), 255) + 0.5) }

// hslColor converts hue (degrees), saturation and lightness (0..1), as
// CSS Color 3 defines.
func hslColor(h, s, l, a float64) rgba {
	h = math.Mod(math.Mod(h, 360)+360, 360) / 360
	s, l = math.Min(math.Max(s, 0), 1), math.Min(math.Max(l, 0), 1)
	var m2 float64
	if l <= 0.5 {
		m2 = l * (s + 1)
	} else {
		m2 = l + s - l*s
	}
	m1 := l*2 - m2
	hue := func(h float64) float64 {
		if h < 0 {
			h++
		} else if h > 1 {
			h--
		}
		switch {
		case h*6 < 1:
			return m1 + (m2-m1)*h*6
		case h*2 < 1:
			return m2
		case h*3 < 2:
			return m1 + (m2-m1)*(2.0/3-h)*6
		}
		return m1
	}
	return rgba{clampByte(hue(h+1.0/3) * 255), clampByte(hue(h) * 255), clampByte(hue(h-1.0/3) * 255), a}
}

// parseTransform reads an SVG transform list into one matrix. CSS units
// on the arguments (deg, px) are accepted, as a transform given in a
// style attribute may carry them.
func parseTransform(s string) (canvas.Matrix, error) {
	m := canvas.Identity
	rest := strings.TrimSpace(s)
	for rest != "" {
		open := strings.IndexByte(rest, '(')
		end := strings.IndexByte(rest, ')')
		if open <= 0 || end < open {
			return m, fmt.Errorf("transform %q is malformed", truncate(s))
		}
		name := strings.TrimSpace(rest[:open])
		args := strings.NewReplacer("deg", " ", "px", " ").Replace(rest[open+1 : end])
		v, err := parseNumbers(args)
		if err != nil {
			return m, err
		}
		t, err := transformOf(name, v)
		if err != nil {
			return m, err
		}
		m = m.Mul(t)
		rest = strings.TrimLeft(rest[end+1:], " ,\t\n\r")
	}
	return m, nil
}

// transformOf is one transform function as a matrix.
func transformOf(name string, v []float64) (canvas.Matrix, error) {
	bad := fmt.Errorf("%s() with %d arguments is malformed", name, len(v))
	switch name {
	case "matrix":
		if len(v) != 6 {
			return canvas.Identity, bad
		}
		return canvas.Matrix{{v[0], v[2], v[4]}, {v[1], v[3], v[5]}}, nil
	case "translate":
		switch len(v) {
		case 1:
			return canvas.Identity.Translate(v[0], 0), nil
		case 2:
			return canvas.Identity.Translate(v[0], v[1]), nil
		}
	case "scale":
		switch len(v) {
		case 1:
			return canvas.Identity.Scale(v[0], v[0]), nil
		case 2:
			return canvas.Identity.Scale(v[0], v[1]), nil
		}
	case "rotate":
		if len(v) != 1 && len(v) != 3 {
			return canvas.Identity, bad
		}
		sin, cos := math.Sincos(v[0] * math.Pi / 180)
		r := canvas.Matrix{{cos, -sin, 0}, {sin, cos, 0}}
		if len(v) == 3 {
			return canvas.Identity.Translate(v[1], v[2]).Mul(r).Translate(-v[1], -v[2]), nil
		}
		return r, nil
	case "skewX":
		if len(v) == 1 {
			return canvas.Matrix{{1, math.Tan(v[0] * math.Pi / 180), 0}, {0, 1, 0}}, nil
		}
	case "skewY":
		if len(v) == 1 {
			return canvas.Matrix{{1, 0, 0}, {math.Tan(v[0] * math.Pi / 180), 1, 0}}, nil
		}
	default:
		return canvas.Identity, fmt.Errorf("the transform %s() is not an SVG transform", truncate(name))
	}
	return canvas.Identity, bad
}

// viewBox is a viewBox attribute.
type viewBox struct{ x, y, w, h float64 }

// parseViewBox reads "minx miny width height".
func parseViewBox(s string) (viewBox, error) {
	v, err := parseNumbers(s)
	if err != nil {
		return viewBox{}, err
	}
	if len(v) != 4 {
		return viewBox{}, fmt.Errorf("viewBox %q needs four numbers", truncate(s))
	}
	if v[2] <= 0 || v[3] <= 0 {
		return viewBox{}, fmt.Errorf("viewBox %q has no area", truncate(s))
	}
	return viewBox{v[0], v[1], v[2], v[3]}, nil
}

// aspect is a preserveAspectRatio attribute: where the viewBox sits in
// its viewport (0, 0.5 or 1 along each axis) and whether it is scaled to
// fit inside (meet) or to cover (slice); none stretches.
type aspect struct {
	none   bool
	ax, ay float64
	slice  bool
}

var defaultAspect = aspect{ax: 0.5, ay: 0.5}

// parseAspect reads "[defer] align [meet|slice]".
func parseAspect(s string) (aspect, error) {
	f := strings.Fields(s)
	if len(f) > 0 && f[0] == "defer" {
		f = f[1:]
	}
	if len(f) == 0 || len(f) > 2 {
		return defaultAspect, fmt.Errorf("preserveAspectRatio %q is malformed", truncate(s))
	}
	a := defaultAspect
	if len(f) == 2 {
		switch f[1] {
		case "meet":
		case "slice":
			a.slice = true
		default:
			return defaultAspect, fmt.Errorf("preserveAspectRatio %q is malformed", truncate(s))
		}
	}
	if f[0] == "none" {
		a.none = true
		return a, nil
	}
	pos := map[string]float64{"Min": 0, "Mid": 0.5, "Max": 1}
	if len(f[0]) != 8 || f[0][0] != 'x' || f[0][4] != 'Y' {
		return defaultAspect, fmt.Errorf("preserveAspectRatio %q is malformed", truncate(s))
	}
	ax, okx := pos[f[0][1:4]]
	ay, oky := pos[f[0][5:8]]
	if !okx || !oky {
		return defaultAspect, fmt.Errorf("preserveAspectRatio %q is malformed", truncate(s))
	}
	a.ax, a.ay = ax, ay
	return a, nil
}

// fit is the transform that maps the viewBox vb into the viewport
// (x, y, w, h) as a says.
func (a aspect) fit(vb viewBox, x, y, w, h float64) canvas.Matrix {
	sx, sy := w/vb.w, h/vb.h
	if !a.none {
		s := math.Min(sx, sy)
		if a.slice {
			s = math.Max(sx, sy)
		}
		sx, sy = s, s
	}
	tx := x + (w-vb.w*sx)*a.ax - vb.x*sx
	ty := y + (h-vb.h*sy)*a.ay - vb.y*sy
	return canvas.Matrix{{sx, 0, tx}, {0, sy, ty}}
}
