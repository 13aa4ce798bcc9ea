package designdoc

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/tdewolff/canvas"
)

// fabricPaint is how a fabric object paints its outline: fill, stroke and
// their order.
type fabricPaint struct {
	fill         *Color
	gradient     *fabricGradient
	stroke       *Color
	strokeWidth  float64
	dash         []float64
	cap, join    string
	fillRule     string
	strokeFirst  bool
	uniformScale [2]float64 // strokeUniform: the scale the stroke undoes; 0 when not
}

// fabricGradient is a fill's gradient as fabric gives it: coordinates in
// its own plane, which gradientPlane maps onto the object's.
type fabricGradient struct {
	g     Gradient
	plane matrix
}

// kRect is fabric's control-point factor for a rounded corner's cubic
// (1 - 0.5522847498: the corner's curve is fabric's own, not an arc).
const kRect = 1 - 0.5522847498

// shape reads a rect, circle, ellipse, line, triangle, polygon, polyline
// or path: its outline in the object's plane (centred on its middle, as
// fabric draws it) and its paint.
func (r *fabricReader) shape(m members, kind string, o fabricObject) ([]Layer, error) {
	outline, err := r.outline(m, kind, o)
	if err != nil {
		return nil, err
	}
	p, err := r.paint(m, kind, o)
	if err != nil {
		return nil, err
	}
	layers, err := p.layers(m.path, outline)
	if err != nil {
		return nil, err
	}
	return layers, drawable(m, layers)
}

// drawable refuses, for the object m, outlines the renderer could not
// read back: numbers past any page (an arc whose radii are too unequal
// grows them to infinity once moved).
func drawable(m members, layers []Layer) error {
	for _, l := range layers {
		if err := drawable(m, l.Layers); err != nil {
			return err
		}
		if l.Type != PathLayer {
			continue
		}
		bad := false
		for _, v := range l.PathBox {
			bad = bad || math.IsNaN(v) || math.Abs(v) > 100*maxFabricNumber
		}
		if _, err := canvas.ParseSVGPath(l.SVGPath); bad || err != nil {
			return errorf(m.path, "reaches beyond any page: an arc's radii too unequal, or a point too far, to draw")
		}
	}
	return nil
}

// outline is what fabric's _render of kind traces, in the object's plane.
func (r *fabricReader) outline(m members, kind string, o fabricObject) (*canvas.Path, error) {
	w, h := o.width, o.height
	p := &canvas.Path{}
	switch kind {
	case "rect":
		r, err := fabricNumbers(m, "rx", "ry")
		if err != nil {
			return nil, err
		}
		return roundedRect(w, h, math.Min(math.Abs(r[0]), w/2), math.Min(math.Abs(r[1]), h/2)), nil
	case "ellipse":
		r, err := fabricNumbers(m, "rx", "ry")
		if err != nil {
			return nil, err
		}
		return canvas.Ellipse(math.Abs(r[0]), math.Abs(r[1])), nil
	case "circle":
		return r.circle(m)
	case "line":
		return fabricLine(m)
	case "triangle":
		p.MoveTo(-w/2, h/2)
		p.LineTo(0, -h/2)
		p.LineTo(w/2, h/2)
		p.Close()
		return p, nil
	case "polygon", "polyline":
		return fabricPoly(m, kind == "polygon")
	}
	return fabricPathOutline(m)
}

// roundedRect is fabric's Rect: corners of radii rx, ry drawn with its
// own cubic.
func roundedRect(w, h, rx, ry float64) *canvas.Path {
	x, y, k := -w/2, -h/2, kRect
	p := &canvas.Path{}
	rounded := rx != 0 || ry != 0
	p.MoveTo(x+rx, y)
	p.LineTo(x+w-rx, y)
	if rounded {
		p.CubeTo(x+w-k*rx, y, x+w, y+k*ry, x+w, y+ry)
	}
	p.LineTo(x+w, y+h-ry)
	if rounded {
		p.CubeTo(x+w, y+h-k*ry, x+w-k*rx, y+h, x+w-rx, y+h)
	}
	p.LineTo(x+rx, y+h)
	if rounded {
		p.CubeTo(x+k*rx, y+h, x, y+h-k*ry, x, y+h-ry)
	}
	p.LineTo(x, y+ry)
	if rounded {
		p.CubeTo(x, y+k*ry, x+k*rx, y, x+rx, y)
	}
	p.Close()
	return p
}

// circle is fabric's Circle: an arc of radius from startAngle to endAngle
// (degrees, since fabric 5), clockwise as the page is seen, or
// anticlockwise with counterClockwise (fabric 6 on); a fill closes it
// with a straight edge.
func (r *fabricReader) circle(m members) (*canvas.Path, error) {
	v, err := fabricNumbers(m, "radius", "startAngle")
	if err != nil {
		return nil, err
	}
	radius, a0 := v[0], v[1]
	a1, err := fabricNumber(m, "endAngle", 360)
	if err != nil {
		return nil, err
	}
	anticlockwise, err := m.boolean("counterClockwise")
	if err != nil {
		return nil, err
	}
	radius = math.Abs(radius)
	if radius == 0 {
		return &canvas.Path{}, nil
	}
	sweep := a1 - a0
	if anticlockwise {
		sweep = a0 - a1
	}
	if sweep >= 360 {
		return canvas.Ellipse(radius, radius), nil
	}
	// As canvas's arc(): from a0 on, increasing (decreasing when
	// anticlockwise), to a1 taken within a turn of it.
	sweep = math.Mod(sweep, 360)
	if sweep < 0 {
		sweep += 360
	}
	end := a0 + sweep
	if anticlockwise {
		end = a0 - sweep
	}
	s0, c0 := math.Sincos(a0 * math.Pi / 180)
	s1, c1 := math.Sincos(end * math.Pi / 180)
	p := &canvas.Path{}
	p.MoveTo(radius*c0, radius*s0)
	if sweep > 0 {
		p.ArcTo(radius, radius, 0, sweep > 180, !anticlockwise, radius*c1, radius*s1)
	}
	return p, nil
}

// fabricLine is fabric's Line: from x1, y1 to x2, y2, moved so that the
// middle of their box is the object's centre.
func fabricLine(m members) (*canvas.Path, error) {
	c, err := fabricNumbers(m, "x1", "y1", "x2", "y2")
	if err != nil {
		return nil, err
	}
	w, h := math.Abs(c[2]-c[0]), math.Abs(c[3]-c[1])
	xm, ym := -1.0, -1.0
	if c[0] > c[2] {
		xm = 1
	}
	if c[1] > c[3] {
		ym = 1
	}
	p := &canvas.Path{}
	p.MoveTo(xm*w/2, ym*h/2)
	p.LineTo(-xm*w/2, -ym*h/2)
	return p, nil
}

// fabricPoly is a Polygon (closed) or Polyline through points, moved so
// that the middle of their box is the object's centre.
func fabricPoly(m members, closed bool) (*canvas.Path, error) {
	raw, ok := m.get("points")
	if !ok {
		return nil, errorf(m.pathOf("points"), "is required: the points, [{\"x\": 0, \"y\": 0}, …]")
	}
	list, err := array(raw, m.pathOf("points"))
	if err != nil {
		return nil, err
	}
	if len(list) > 10_000 {
		return nil, errorf(m.pathOf("points"), "must hold at most 10000 points, got %d", len(list))
	}
	pts := make([][2]float64, len(list))
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i, item := range list {
		pm, err := object(item, fmt.Sprintf("%s[%d]", m.pathOf("points"), i))
		if err != nil {
			return nil, err
		}
		xy, err := fabricNumbers(pm, "x", "y")
		if err != nil {
			return nil, err
		}
		x, y := xy[0], xy[1]
		pts[i] = [2]float64{x, y}
		x0, y0, x1, y1 = math.Min(x0, x), math.Min(y0, y), math.Max(x1, x), math.Max(y1, y)
	}
	p := &canvas.Path{}
	cx, cy := (x0+x1)/2, (y0+y1)/2
	for i, pt := range pts {
		if i == 0 {
			p.MoveTo(pt[0]-cx, pt[1]-cy)
		} else {
			p.LineTo(pt[0]-cx, pt[1]-cy)
		}
	}
	if closed && len(pts) > 0 {
		p.Close()
	}
	return p, nil
}

// fabricPathOutline is a Path's outline: its path array (fabric's parsed
// path data, [["M", 0, 0], ["L", 10, 0], …]) moved so that the middle of
// its bounds is the object's centre (fabric's pathOffset).
func fabricPathOutline(m members) (*canvas.Path, error) {
	raw, ok := m.get("path")
	if !ok {
		return nil, errorf(m.pathOf("path"), "is required: the path's commands, [[\"M\", 0, 0], [\"L\", 10, 0], …]")
	}
	d, err := pathArrayData(raw, m.pathOf("path"))
	if err != nil {
		return nil, err
	}
	if len(d) > maxPathBytes {
		return nil, errorf(m.pathOf("path"), "must be at most %d KB of path data, got %d KB", maxPathBytes>>10, len(d)>>10)
	}
	p, err := canvas.ParseSVGPath(d)
	if err != nil {
		return nil, errorf(m.pathOf("path"), "is not a path: %s", strings.TrimPrefix(err.Error(), "bad path: "))
	}
	x0, y0, x1, y1 := fabricPathBounds(p)
	return p.Translate(-(x0+x1)/2, -(y0+y1)/2), nil
}

// fabricPathBounds is a path's box as fabric's _calcBoundsFromPath
// finds it, whose centre is the path's pathOffset: exact, but for a
// quadratic curve, which it bounds as a cubic with both control points on
// the quadratic's (a curve that bulges 80 pixels reaches 60 in it, not 40).
func fabricPathBounds(p *canvas.Path) (x0, y0, x1, y1 float64) {
	x0, y0, x1, y1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	add := func(b canvas.Rect) {
		x0, y0, x1, y1 = math.Min(x0, b.X0), math.Min(y0, b.Y0), math.Max(x1, b.X1), math.Max(y1, b.Y1)
	}
	d := p.Data()
	var x, y float64
	for i := 0; i < len(d); {
		seg := &canvas.Path{}
		seg.MoveTo(x, y)
		switch cmd := d[i]; cmd {
		case canvas.MoveToCmd, canvas.CloseCmd:
			x, y = d[i+1], d[i+2]
			i += 4
			continue
		case canvas.LineToCmd:
			seg.LineTo(d[i+1], d[i+2])
			x, y, i = d[i+1], d[i+2], i+4
		case canvas.QuadToCmd:
			seg.CubeTo(d[i+1], d[i+2], d[i+1], d[i+2], d[i+3], d[i+4])
			x, y, i = d[i+3], d[i+4], i+6
		case canvas.CubeToCmd:
			seg.CubeTo(d[i+1], d[i+2], d[i+3], d[i+4], d[i+5], d[i+6])
			x, y, i = d[i+5], d[i+6], i+8
		default: // an arc, which fabric draws as curves that bound it alike
			large, sweep := d[i+4] == 1 || d[i+4] == 3, d[i+4] >= 2
			seg.ArcTo(d[i+1], d[i+2], d[i+3]*180/math.Pi, large, sweep, d[i+5], d[i+6])
			x, y, i = d[i+5], d[i+6], i+8
		}
		add(seg.Bounds())
	}
	if x0 > x1 {
		return 0, 0, 0, 0
	}
	return x0, y0, x1, y1
}

// pathArrayData writes a fabric path array as SVG path data.
func pathArrayData(raw json.RawMessage, path string) (string, error) {
	var cmds [][]json.RawMessage
	if err := json.Unmarshal(raw, &cmds); err != nil {
		return "", errorf(path, "must be an array of commands, each [letter, numbers…], got %s", abbreviate(raw))
	}
	var b strings.Builder
	for i, cmd := range cmds {
		var letter string
		if len(cmd) == 0 || json.Unmarshal(cmd[0], &letter) != nil || len(letter) != 1 || !strings.Contains("MmLlHhVvCcSsQqTtAaZz", letter) {
			return "", errorf(fmt.Sprintf("%s[%d]", path, i), "must start with an SVG path command letter (M, L, C, Q, A, Z, …)")
		}
		b.WriteString(letter)
		for j, n := range cmd[1:] {
			var v float64
			if json.Unmarshal(n, &v) != nil || math.IsNaN(v) || math.Abs(v) > maxFabricNumber {
				return "", errorf(fmt.Sprintf("%s[%d][%d]", path, i, j+1), "must be a number within ±%s, got %s", shortNumber(maxFabricNumber), abbreviate(n))
			}
			b.WriteByte(' ')
			b.WriteString(json.Number(strings.TrimSpace(string(n))).String())
		}
		b.WriteByte(' ')
	}
	return b.String(), nil
}

// paint reads fill, stroke and how they are drawn.
func (r *fabricReader) paint(m members, kind string, o fabricObject) (fabricPaint, error) {
	p := fabricPaint{strokeWidth: o.strokeWidth}
	var err error
	if kind != "line" { // a line is only stroked
		if p.fill, p.gradient, err = r.filler(m, "fill", o); err != nil {
			return p, err
		}
	}
	if p.stroke, err = fabricStrokeColor(m); err != nil {
		return p, err
	}
	if dash, ok, err := m.numbers("strokeDashArray"); err != nil {
		return p, err
	} else if ok {
		for _, v := range dash {
			if v < 0 {
				return p, errorf(m.pathOf("strokeDashArray"), "must hold no negative length")
			}
		}
		if len(dash) > maxDash {
			return p, errorf(m.pathOf("strokeDashArray"), "must hold at most %d lengths", maxDash)
		}
		if slicesSum(dash) > 0 {
			p.dash = dash
		}
	}
	if p.cap, err = m.choice("strokeLineCap", "butt", "round", "square"); err != nil {
		return p, err
	}
	if p.join, err = m.choice("strokeLineJoin", "miter", "round", "bevel"); err != nil {
		return p, err
	}
	if limit, err := fabricNumber(m, "strokeMiterLimit", 4); err != nil {
		return p, err
	} else if limit != 4 && p.join == "miter" && p.stroke != nil {
		return p, errorf(m.pathOf("strokeMiterLimit"), "must be 4 (fabric's and SVG's default), got %s: Platen bevels mitres longer than 4 times the stroke's width", shortNumber(limit))
	}
	if p.fillRule, err = m.choice("fillRule", "nonzero", "evenodd"); err != nil {
		return p, err
	}
	first, err := m.choice("paintFirst", "fill", "stroke")
	if err != nil {
		return p, err
	}
	p.strokeFirst = first == "stroke"
	if o.strokeUniform {
		p.uniformScale = [2]float64{math.Abs(o.scale[0]), math.Abs(o.scale[1])}
		if o.inGroup {
			p.uniformScale = objectScaling(r.plane.mul(o.own))
		}
	}
	return p, nil
}

func slicesSum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

// objectScaling is fabric's getObjectScaling for an object in a group:
// the scale of its matrix from the canvas (qrDecompose), its groups'
// included (for one on the canvas, fabric takes its scaleX and scaleY as
// they are, its skew left in). A stroke with strokeUniform undoes it.
func objectScaling(a matrix) [2]float64 {
	sx := math.Hypot(a[0], a[1])
	sy := 0.0
	if sx != 0 {
		sy = (a[0]*a[3] - a[2]*a[1]) / sx
	}
	return [2]float64{math.Abs(sx), math.Abs(sy)}
}

// fabricStrokeColor reads stroke: a colour, or none; a gradient stroke is
// refused.
func fabricStrokeColor(m members) (*Color, error) {
	raw, ok := m.get("stroke")
	if !ok || emptyFabricValue(raw) {
		return nil, nil
	}
	if raw[0] == '{' {
		return nil, errorf(m.pathOf("stroke"), "is a gradient or a pattern: Platen prints strokes in one colour")
	}
	return fabricColorMember(m, "stroke")
}

// layers are the outline painted: one path layer, or, where the fill and
// the stroke are drawn in different planes (a gradient's, a uniform
// stroke's), a layer for each, in fabric's order.
func (p fabricPaint) layers(path string, outline *canvas.Path) ([]Layer, error) {
	if outline.Empty() {
		return nil, nil
	}
	hasStroke := p.stroke != nil && p.strokeWidth > 0
	if p.gradient == nil && p.uniformScale == [2]float64{} {
		l := pathLayer(path, outline, identity)
		l.Fill, l.FillRule = p.fill, p.fillRule
		p.setStroke(&l)
		if l.Fill == nil && l.Stroke == nil {
			return nil, nil
		}
		if p.strokeFirst && l.Fill != nil && l.Stroke != nil {
			fill, stroke := l, l
			fill.Stroke, stroke.Fill = nil, nil
			return []Layer{stroke, fill}, nil
		}
		return []Layer{l}, nil
	}
	var fill, stroke []Layer
	if p.fill != nil || p.gradient != nil {
		fill = []Layer{p.fillLayer(path, outline)}
	}
	if hasStroke {
		stroke = []Layer{p.strokeLayer(path, outline)}
	}
	if p.strokeFirst {
		return append(stroke, fill...), nil
	}
	return append(fill, stroke...), nil
}

// pathLayer is outline, mapped by m, as a path layer drawn at its own
// size from the plane's origin.
func pathLayer(path string, outline *canvas.Path, m matrix) Layer {
	o := outline.Copy()
	if m != identity {
		o = o.Transform(canvas.Matrix{{m[0], m[2], m[4]}, {m[1], m[3], m[5]}})
	}
	b := o.Bounds()
	return Layer{Type: PathLayer, Path: path, Opacity: 1, Scale: 1, SVGPath: o.String(),
		PathBox: [4]float64{b.X0, b.Y0, b.X1, b.Y1}, Width: b.X1 - b.X0, Height: b.Y1 - b.Y0, FillRule: "nonzero"}
}

func (p fabricPaint) setStroke(l *Layer) {
	if p.stroke == nil || p.strokeWidth <= 0 {
		return
	}
	l.Stroke, l.StrokeWidth, l.Dash, l.LineCap, l.LineJoin = p.stroke, p.strokeWidth, p.dash, p.cap, p.join
}

// fillLayer is the fill alone; a gradient's in a group whose plane is the
// gradient's, the outline mapped into it, so that any gradient transform
// (a percentage gradient's box included) draws as fabric's does.
func (p fabricPaint) fillLayer(path string, outline *canvas.Path) Layer {
	if p.gradient == nil {
		l := pathLayer(path, outline, identity)
		l.Fill, l.FillRule = p.fill, p.fillRule
		return l
	}
	inverse, _ := p.gradient.plane.invert() // gradientPlane refused a flat one
	l := pathLayer(path, outline, inverse)
	g := p.gradient.g
	l.FillGradient, l.FillRule = &g, p.fillRule
	plane := [6]float64(p.gradient.plane)
	return Layer{Type: GroupLayer, Path: path, Opacity: 1, Scale: 1, Matrix: &plane, Layers: []Layer{l}}
}

// strokeLayer is the stroke alone; with strokeUniform, in a plane that
// undoes the object's scale, so that its width (and dashes) are the
// canvas's pixels however the object is scaled.
func (p fabricPaint) strokeLayer(path string, outline *canvas.Path) Layer {
	s := p.uniformScale
	if s == [2]float64{} || s[0] == 0 || s[1] == 0 {
		l := pathLayer(path, outline, identity)
		p.setStroke(&l)
		return l
	}
	l := pathLayer(path, outline, matrix{s[0], 0, 0, s[1], 0, 0})
	p.setStroke(&l)
	undo := [6]float64{1 / s[0], 0, 0, 1 / s[1], 0, 0}
	return Layer{Type: GroupLayer, Path: path, Opacity: 1, Scale: 1, Matrix: &undo, Layers: []Layer{l}}
}
