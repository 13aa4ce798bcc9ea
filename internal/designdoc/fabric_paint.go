package designdoc

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"golang.org/x/image/colornames"
)

// fabricColorMember reads a colour as fabric takes one (a CSS colour:
// #rgb, #rgba, #rrggbb, #rrggbbaa, rgb(), rgba(), hsl(), hsla() or a
// name); nil for none ("", "transparent", null).
func fabricColorMember(m members, name string) (*Color, error) {
	s, err := m.text(name, "")
	if err != nil {
		return nil, err
	}
	c, ok := fabricColor(s)
	if !ok {
		return nil, errorf(m.pathOf(name), "must be a CSS colour (#c03030, rgb(192, 48, 48), rgba(192, 48, 48, 0.5), hsl(0, 60%%, 47%%) or a name such as red), got %q", s)
	}
	return c, nil
}

// fabricColor parses a CSS colour; nil, true is no colour.
func fabricColor(s string) (*Color, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch {
	case s == "" || s == "transparent" || s == "none":
		return nil, true
	case strings.HasPrefix(s, "#"):
		return hexColor(s[1:])
	case strings.HasPrefix(s, "rgb"):
		return functionColor(s, "rgb", rgbColor)
	case strings.HasPrefix(s, "hsl"):
		return functionColor(s, "hsl", hslColor)
	}
	c, ok := colornames.Map[s]
	if !ok {
		return nil, false
	}
	return &Color{R: c.R, G: c.G, B: c.B, A: 255}, true
}

func hexColor(h string) (*Color, bool) {
	if len(h) == 3 || len(h) == 4 {
		long := make([]byte, 0, 8)
		for i := range len(h) {
			long = append(long, h[i], h[i])
		}
		h = string(long)
	}
	if len(h) != 6 && len(h) != 8 {
		return nil, false
	}
	v, err := strconv.ParseUint(h, 16, 64)
	if err != nil {
		return nil, false
	}
	if len(h) == 6 {
		v = v<<8 | 0xff
	}
	c := &Color{R: uint8(v >> 24), G: uint8(v >> 16), B: uint8(v >> 8), A: uint8(v)}
	return none(c), true
}

// none is nil for a colour that is wholly transparent: fabric paints
// nothing with it.
func none(c *Color) *Color {
	if c.A == 0 {
		return nil
	}
	return c
}

// functionColor reads name(a, b, c) or name(a, b, c, alpha) (nameA too),
// commas or spaces between, with to turning the three into a colour.
func functionColor(s, name string, to func([3]string) (Color, bool)) (*Color, bool) {
	body, ok := strings.CutPrefix(s, name+"a(")
	if !ok {
		if body, ok = strings.CutPrefix(s, name+"("); !ok {
			return nil, false
		}
	}
	body, ok = strings.CutSuffix(body, ")")
	if !ok {
		return nil, false
	}
	parts := strings.FieldsFunc(strings.ReplaceAll(body, "/", ","), func(r rune) bool { return r == ',' || r == ' ' })
	if len(parts) != 3 && len(parts) != 4 {
		return nil, false
	}
	c, ok := to([3]string{parts[0], parts[1], parts[2]})
	if !ok {
		return nil, false
	}
	c.A = 255
	if len(parts) == 4 {
		a, ok := fraction(parts[3])
		if !ok {
			return nil, false
		}
		c.A = uint8(math.Round(a * 255))
	}
	return none(&c), true
}

// fraction reads 0.5 or 50% as 0.5, clamped to 0–1.
func fraction(s string) (float64, bool) {
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	if pct {
		v /= 100
	}
	return math.Max(0, math.Min(1, v)), true
}

func rgbColor(p [3]string) (Color, bool) {
	var v [3]uint8
	for i, s := range p {
		if strings.HasSuffix(s, "%") {
			f, ok := fraction(s)
			if !ok {
				return Color{}, false
			}
			v[i] = uint8(math.Round(f * 255))
			continue
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) {
			return Color{}, false
		}
		v[i] = uint8(math.Round(math.Max(0, math.Min(255, f))))
	}
	return Color{R: v[0], G: v[1], B: v[2]}, true
}

func hslColor(p [3]string) (Color, bool) {
	h, err := strconv.ParseFloat(strings.TrimSuffix(p[0], "deg"), 64)
	if err != nil || math.IsNaN(h) || math.IsInf(h, 0) || !strings.HasSuffix(p[1], "%") || !strings.HasSuffix(p[2], "%") {
		return Color{}, false
	}
	s, ok1 := fraction(p[1])
	l, ok2 := fraction(p[2])
	if !ok1 || !ok2 {
		return Color{}, false
	}
	h = math.Mod(math.Mod(h, 360)+360, 360) / 360
	q := l + s - l*s
	if l < 0.5 {
		q = l * (1 + s)
	}
	pp := 2*l - q
	ch := func(t float64) uint8 {
		t = math.Mod(t+1, 1)
		var v float64
		switch {
		case t < 1.0/6:
			v = pp + (q-pp)*6*t
		case t < 0.5:
			v = q
		case t < 2.0/3:
			v = pp + (q-pp)*(2.0/3-t)*6
		default:
			v = pp
		}
		return uint8(math.Round(v * 255))
	}
	return Color{R: ch(h + 1.0/3), G: ch(h), B: ch(h - 1.0/3)}, true
}

// filler reads a fill: a colour, a gradient, or none; a pattern is
// refused.
func (r *fabricReader) filler(m members, name string, o fabricObject) (*Color, *fabricGradient, error) {
	raw, ok := m.get(name)
	if !ok {
		if _, present := m.m[name]; present { // null: no fill
			return nil, nil, nil
		}
		return &Color{A: 255}, nil, nil // fabric's default fill, rgb(0,0,0)
	}
	if raw[0] != '{' {
		c, err := fabricColorMember(m, name)
		return c, nil, err
	}
	gm, err := object(raw, m.pathOf(name))
	if err != nil {
		return nil, nil, err
	}
	if gm.has("source") {
		return nil, nil, errorf(m.pathOf(name), "is a pattern: Platen prints fills of one colour or a gradient; put the picture in an image clipped to the shape")
	}
	g, err := fabricGradientOf(gm, o, r.major)
	return nil, g, err
}

// fabricGradientOf reads a fabric gradient: linear from x1, y1 to x2, y2,
// or radial from the circle x1, y1, r1 to x2, y2, r2, in its plane: the
// object's box from its top-left corner (moved by offsetX, offsetY), in
// pixels or, with gradientUnits "percentage", as fractions of the box,
// then gradientTransform.
func fabricGradientOf(gm members, o fabricObject, major int) (*fabricGradient, error) {
	kind, err := gm.choice("type", "linear", "radial")
	if err != nil {
		return nil, err
	}
	units, err := gm.choice("gradientUnits", "pixels", "percentage")
	if err != nil {
		return nil, err
	}
	raw, ok := gm.get("coords")
	if !ok {
		return nil, errorf(gm.pathOf("coords"), "is required: the gradient's x1, y1, x2, y2 (and r1, r2 for a radial one)")
	}
	cm, err := object(raw, gm.pathOf("coords"))
	if err != nil {
		return nil, err
	}
	coords, err := fabricNumbers(cm, "x1", "y1", "r1", "x2", "y2", "r2")
	if err != nil {
		return nil, err
	}
	c := [6]float64(coords)
	g := Gradient{Radial: kind == "radial", Points: &c}
	if g.Radial && (c[2] < 0 || c[5] < 0) {
		return nil, errorf(gm.pathOf("coords"), "must give radii r1 and r2 of 0 or more")
	}
	if g.Stops, err = fabricStops(gm, major); err != nil {
		return nil, err
	}
	offset, err := fabricNumbers(gm, "offsetX", "offsetY")
	if err != nil {
		return nil, err
	}
	plane := translate(-o.width/2+offset[0], -o.height/2+offset[1])
	if units == "percentage" {
		plane = plane.mul(matrix{o.width, 0, 0, o.height, 0, 0})
	}
	if t, ok, err := gm.numbers("gradientTransform"); err != nil {
		return nil, err
	} else if ok {
		if len(t) != 6 {
			return nil, errorf(gm.pathOf("gradientTransform"), "must be a matrix of 6 numbers, got %d", len(t))
		}
		plane = plane.mul(matrix(t))
	}
	if scale := math.Sqrt(math.Abs(plane.det())); !(scale >= minGradientScale && scale <= maxGradientScale) {
		return nil, errorf(gm.path, "spreads over %s pixels a unit: the object's box, its percentage or the gradient's transform must give it from %g to %g",
			shortNumber(scale), minGradientScale, maxGradientScale)
	}
	return &fabricGradient{g: g, plane: plane}, nil
}

// The scales a gradient's plane may have (its area's square root, in
// canvas pixels a unit of its coordinates): flatter, and the drawing
// library cannot invert it once the page's scale is applied; larger, and
// a percentage gradient on the largest box is still within.
const (
	minGradientScale = 1e-3
	maxGradientScale = 1e7
)

// fabricStops reads colorStops: [{"offset": 0, "color": "#fff"}, …],
// which fabric draws sorted by offset. A stop's opacity fades its colour
// before fabric 7, which ignores it.
func fabricStops(gm members, major int) ([]Stop, error) {
	raw, ok := gm.get("colorStops")
	if !ok {
		return nil, errorf(gm.pathOf("colorStops"), "is required: [{\"offset\": 0, \"color\": \"#ffffff\"}, …]")
	}
	list, err := array(raw, gm.pathOf("colorStops"))
	if err != nil {
		return nil, err
	}
	if len(list) < 1 || len(list) > maxStops {
		return nil, errorf(gm.pathOf("colorStops"), "must hold 1 to %d stops, got %d", maxStops, len(list))
	}
	stops := make([]Stop, 0, len(list))
	for i, item := range list {
		sm, err := object(item, fmt.Sprintf("%s[%d]", gm.pathOf("colorStops"), i))
		if err != nil {
			return nil, err
		}
		off, err := sm.number("offset", 0)
		if err != nil {
			return nil, err
		}
		c, err := fabricColorMember(sm, "color")
		if err != nil {
			return nil, err
		}
		if c == nil || c.A != 255 {
			return nil, errorf(sm.pathOf("color"), "must be opaque: Platen prints gradients between opaque colours")
		}
		if op, err := sm.number("opacity", 1); err != nil {
			return nil, err
		} else if op != 1 && major < 7 {
			return nil, errorf(sm.pathOf("opacity"), "must be 1: Platen prints gradients between opaque colours")
		}
		stops = append(stops, Stop{Offset: math.Max(0, math.Min(1, off)), Color: *c})
	}
	sortStops(stops)
	if len(stops) == 1 {
		stops = append(stops, stops[0])
	}
	return stops, nil
}

// sortStops orders stops by offset, keeping the order of equal ones.
func sortStops(stops []Stop) {
	for i := 1; i < len(stops); i++ {
		for j := i; j > 0 && stops[j].Offset < stops[j-1].Offset; j-- {
			stops[j], stops[j-1] = stops[j-1], stops[j]
		}
	}
}
