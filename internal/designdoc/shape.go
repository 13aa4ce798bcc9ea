package designdoc

// Shape is an outline a layer is clipped to: a rectangle (with rounded
// corners), an ellipse, or SVG path data, in the layer's coordinates.
type Shape struct {
	// Kind is CutRect, CutEllipse or CutPath.
	Kind                string
	X, Y, Width, Height float64
	Radius              float64
	// SVGPath, PathBox and ViewBox are a path's, as a path layer's.
	SVGPath string
	PathBox [4]float64
	ViewBox *[4]float64
}

var clipMembers = []string{"shape", "x", "y", "width", "height", "radius", "d", "view_box"}

// optionalShape reads a clip: {"shape": "ellipse", "x": …, "y": …,
// "width": …, "height": …}, a rect with an optional radius, or a path's
// d (with view_box, width and height to stretch it over a box).
func (d *Document) optionalShape(m members, name string) (*Shape, error) {
	raw, ok := m.get(name)
	if !ok {
		return nil, nil
	}
	c, err := object(raw, m.pathOf(name))
	if err != nil {
		return nil, err
	}
	if err := c.only("a clip", clipMembers); err != nil {
		return nil, err
	}
	def := CutRect
	if c.has("d") {
		def = CutPath
	}
	kind, err := c.text("shape", def)
	if err != nil {
		return nil, err
	}
	if kind != CutRect && kind != CutEllipse && kind != CutPath {
		return nil, errorf(c.pathOf("shape"), "must be rect, ellipse or path, got %q", kind)
	}
	l := Layer{Path: c.path}
	if l.X, err = d.ranged(c, "x", 0, offsetSpan); err != nil {
		return nil, err
	}
	if l.Y, err = d.ranged(c, "y", 0, offsetSpan); err != nil {
		return nil, err
	}
	if err := d.clipOutline(&l, c, kind); err != nil {
		return nil, err
	}
	return &Shape{Kind: kind, X: l.X, Y: l.Y, Width: l.Width, Height: l.Height, Radius: l.Radius,
		SVGPath: l.SVGPath, PathBox: l.PathBox, ViewBox: l.ViewBox}, nil
}

// clipOutline reads the members of a clip of kind into l.
func (d *Document) clipOutline(l *Layer, c members, kind string) error {
	var err error
	if kind != CutPath {
		if c.has("d") || c.has("view_box") {
			name := "d"
			if !c.has(name) {
				name = "view_box"
			}
			return errorf(c.pathOf(name), "applies to shape path only")
		}
		if kind == CutEllipse && c.has("radius") {
			return errorf(c.pathOf("radius"), "applies to shape rect only")
		}
		if err := d.box(l, c); err != nil {
			return err
		}
		l.Radius, err = d.ranged(c, "radius", 0, reachSpan)
		return err
	}
	if c.has("radius") {
		return errorf(c.pathOf("radius"), "applies to shape rect only")
	}
	if l.SVGPath, l.PathBox, err = d.pathData(c, "d"); err != nil {
		return err
	}
	if l.ViewBox, err = viewBox(c); err != nil {
		return err
	}
	if l.ViewBox != nil {
		return d.box(l, c)
	}
	if c.has("width") || c.has("height") {
		return errorf(c.pathOf("width"), "needs view_box: the part of the path's plane stretched over width × height")
	}
	l.Width, l.Height = l.PathBox[2]-l.PathBox[0], l.PathBox[3]-l.PathBox[1]
	return nil
}
