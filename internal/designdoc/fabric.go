package designdoc

// A fabric.js canvas as a design document: {"format": "fabric", "width",
// "height", "bleed", "unit", "dpi", "canvas": {"width", "height"},
// "fabric": <canvas.toJSON()>}, or "surfaces" of name, canvas and fabric.
// It is read into the same layers a design document has, so the renderer,
// the previews and the batches draw it as they draw any other; each
// fabric object becomes a group whose matrix is the object's own transform
// (fabric's calcOwnMatrix), holding what fabric paints in the object's
// plane, centred on its middle. What fabric would draw and Platen cannot
// is refused, naming the object and the property, never dropped.

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tdewolff/canvas"
)

// fabricDocumentMembers are a fabric document's top level.
var fabricDocumentMembers = []string{"format", "unit", "width", "height", "bleed", "dpi", "missing_glyphs", "canvas", "fabric", "surfaces", "meta"}

var fabricSurfaceMembers = []string{"name", "canvas", "fabric", "meta"}

// maxFabricNumber bounds every number of a canvas, in its pixels or
// degrees: far beyond any customiser's, well within path arithmetic's
// precision.
const maxFabricNumber = 1e6

// isFabric reports whether a document's top level says it is a fabric
// canvas.
func isFabric(root members) bool {
	raw, ok := root.get("format")
	return ok && strings.TrimSpace(string(raw)) == `"fabric"`
}

// parseFabric reads a fabric document's top level and its surfaces.
func parseFabric(root members) (*Document, error) {
	if err := root.only("a fabric document", fabricDocumentMembers); err != nil {
		return nil, err
	}
	d := &Document{Unit: Millimetre}
	if err := d.header(root); err != nil {
		return nil, err
	}
	_, hasSurfaces := root.get("surfaces")
	_, hasCanvas := root.get("fabric")
	switch {
	case hasSurfaces && hasCanvas:
		return nil, errorf("fabric", "cannot be given with surfaces: give surfaces (each with its canvas and fabric) for a product with several sides, or canvas and fabric for one")
	case !hasSurfaces && !hasCanvas:
		return nil, errorf("fabric", "is required: the canvas as fabric.js's canvas.toJSON() saved it (or surfaces, each with one)")
	case hasCanvas:
		s, err := d.fabricSurface(root, "front")
		if err != nil {
			return nil, err
		}
		d.Surfaces = []Surface{s}
		return d, nil
	}
	raw, _ := root.get("surfaces")
	list, err := array(raw, "surfaces")
	if err != nil {
		return nil, err
	}
	switch {
	case len(list) == 0:
		return nil, errorf("surfaces", "must hold at least one surface")
	case len(list) > maxSurfaces:
		return nil, errorf("surfaces", "must hold at most %d surfaces, got %d", maxSurfaces, len(list))
	}
	for i, item := range list {
		path := fmt.Sprintf("surfaces[%d]", i)
		m, err := object(item, path)
		if err != nil {
			return nil, err
		}
		if err := m.only("a fabric surface", fabricSurfaceMembers); err != nil {
			return nil, err
		}
		name, err := m.text("name", "")
		if err != nil {
			return nil, err
		}
		if !m.has("fabric") {
			return nil, errorf(m.pathOf("fabric"), "is required: the surface's canvas as canvas.toJSON() saved it")
		}
		s, err := d.fabricSurface(m, name)
		if err != nil {
			return nil, err
		}
		d.Surfaces = append(d.Surfaces, s)
	}
	return d, nil
}

// fabricReader reads one canvas: its version's defaults, and the count of
// layers made against the surface's limit.
type fabricReader struct {
	d *Document
	// major is the fabric version the canvas was saved by (5, 6 or 7):
	// fabric 7 places an object by its centre when it says nothing else,
	// older ones by its top-left corner.
	major int
	count int
	// plane is the matrix from the canvas's plane to that of the objects
	// being read: the identity, or their groups'.
	plane matrix
}

// fabricSurface reads the canvas size and the canvas of m (the document's
// top level or one of its surfaces) into a surface: a group that maps
// the canvas's pixels onto the trim box, over the canvas's background.
func (d *Document) fabricSurface(m members, name string) (Surface, error) {
	cw, _, err := d.canvasSize(m)
	if err != nil {
		return Surface{}, err
	}
	raw, _ := m.get("fabric")
	fm, err := object(raw, m.pathOf("fabric"))
	if err != nil {
		return Surface{}, err
	}
	r := &fabricReader{d: d, plane: identity}
	if r.major, err = fabricMajor(fm); err != nil {
		return Surface{}, err
	}
	if err := r.refuseCanvasMembers(fm); err != nil {
		return Surface{}, err
	}
	k := d.Width / cw
	page := Layer{Type: GroupLayer, Path: fm.path, Opacity: 1, Scale: 1, Matrix: &[6]float64{k, 0, 0, k, 0, 0}}
	if bg, err := r.canvasBackground(fm, k); err != nil {
		return Surface{}, err
	} else if bg != nil {
		page.Layers = append(page.Layers, *bg)
	}
	if img, ok := fm.get("backgroundImage"); ok {
		l, err := r.object(img, fm.pathOf("backgroundImage"), 0)
		if err != nil {
			return Surface{}, err
		}
		page.Layers = append(page.Layers, l...)
	}
	objects, err := r.objects(fm, 0)
	if err != nil {
		return Surface{}, err
	}
	page.Layers = append(page.Layers, objects...)
	var clippedAway bool
	if page.Clip, clippedAway, err = r.clipOf(fm, identity); err != nil {
		return Surface{}, err
	} else if clippedAway {
		page.Layers = nil
	}
	return Surface{Name: name, Layers: []Layer{page}}, nil
}

// canvasSize reads the canvas's size in pixels, which must have the trim
// box's proportions: the canvas maps onto it at one scale.
func (d *Document) canvasSize(m members) (w, h float64, err error) {
	raw, ok := m.get("canvas")
	if !ok {
		return 0, 0, errorf(m.pathOf("canvas"), `is required: the canvas's size in pixels, {"width": 800, "height": 560}`)
	}
	cm, err := object(raw, m.pathOf("canvas"))
	if err != nil {
		return 0, 0, err
	}
	if err := cm.only("the canvas", []string{"width", "height"}); err != nil {
		return 0, 0, err
	}
	canvasSpan := span{max: maxFabricNumber, above: true, unit: " px"}
	if w, err = d.requiredRanged(cm, "width", canvasSpan); err != nil {
		return 0, 0, err
	}
	if h, err = d.requiredRanged(cm, "height", canvasSpan); err != nil {
		return 0, 0, err
	}
	if want := w * d.Height / d.Width; math.Abs(h-want) > 0.005*want+0.5 {
		return 0, 0, errorf(cm.pathOf("height"), "must give the canvas the trim's proportions (%s × %s %s): %s px for a width of %s px, got %s",
			shortNumber(d.Width), shortNumber(d.Height), d.Unit, shortNumber(want), shortNumber(w), shortNumber(h))
	}
	return w, h, nil
}

// fabricMajor reads the fabric version that saved the canvas; a canvas
// that gives none is taken as fabric 7's.
func fabricMajor(fm members) (int, error) {
	v, err := fm.text("version", "7.0.0")
	if err != nil {
		return 0, err
	}
	major, _, _ := strings.Cut(v, ".")
	n, convErr := strconv.Atoi(major)
	if convErr != nil || n < 5 || n > 7 {
		return 0, errorf(fm.pathOf("version"), "must be a fabric.js version from 5 to 7 (as canvas.toJSON() writes it, \"7.4.0\"), got %q", v)
	}
	return n, nil
}

// refuseCanvasMembers refuses what a canvas may carry that Platen does not
// print: an overlay over the objects.
func (r *fabricReader) refuseCanvasMembers(fm members) error {
	for _, name := range []string{"overlay", "overlayImage", "overlayColor"} {
		if v, ok := fm.get(name); ok && !emptyFabricValue(v) {
			return errorf(fm.pathOf(name), "is not printed: Platen prints no overlay over the canvas's objects; draw it as the last object instead")
		}
	}
	return nil
}

// canvasBackground is the canvas's background colour as a rectangle over
// the whole bleed box (fabric fills the whole canvas element with it), in
// the canvas's pixels, k of the document's unit each: inside the page's
// group, where the canvas's clip path clips it as fabric's does. Nil when
// there is none.
func (r *fabricReader) canvasBackground(fm members, k float64) (*Layer, error) {
	raw, ok := fm.get("background")
	if !ok || emptyFabricValue(raw) {
		return nil, nil
	}
	c, err := fabricColorMember(fm, "background")
	if err != nil || c == nil {
		return nil, err
	}
	d := r.d
	w, h := (d.Width+2*d.Bleed)/k, (d.Height+2*d.Bleed)/k
	return &Layer{Type: RectLayer, Path: fm.pathOf("background"), X: -d.Bleed / k, Y: -d.Bleed / k, Width: w, Height: h, Opacity: 1, Scale: 1, Fill: c}, nil
}

// emptyFabricValue is a value fabric treats as nothing: "", null, {} or [].
func emptyFabricValue(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == `""` || s == "null" || s == "{}" || s == "[]" || s == "false"
}

// objects reads the objects of a canvas or a group, in painting order.
func (r *fabricReader) objects(m members, depth int) ([]Layer, error) {
	raw, ok := m.get("objects")
	if !ok {
		return nil, nil
	}
	list, err := array(raw, m.pathOf("objects"))
	if err != nil {
		return nil, err
	}
	var out []Layer
	for i, item := range list {
		layers, err := r.object(item, fmt.Sprintf("%s[%d]", m.pathOf("objects"), i), depth)
		if err != nil {
			return nil, err
		}
		out = append(out, layers...)
	}
	return out, nil
}

// fabricTypes maps the type names the versions write (fabric 5's
// "i-text", 6's and 7's "IText") to one spelling.
func fabricType(t string) string {
	return strings.ReplaceAll(strings.ToLower(t), "-", "")
}

// object reads one fabric object into the group that draws it; none when
// it is invisible.
func (r *fabricReader) object(raw json.RawMessage, path string, depth int) ([]Layer, error) {
	m, err := object(raw, path)
	if err != nil {
		return nil, err
	}
	t, err := m.text("type", "")
	if err != nil {
		return nil, err
	}
	if t == "" {
		return nil, errorf(m.pathOf("type"), "is required: the object's fabric type (rect, circle, textbox, image, group, …)")
	}
	o, err := r.common(m, false)
	if err != nil || !o.visible {
		return nil, err
	}
	full := r.plane.mul(o.own)
	if flat(full) {
		return nil, nil // fabric draws nothing of an object scaled to nothing
	}
	o.inGroup = depth > 0
	if r.count++; r.count > maxLayers {
		return nil, errorf(path, "makes the surface hold more than %d objects (groups' objects included)", maxLayers)
	}
	own := [6]float64(o.own)
	g := Layer{Type: GroupLayer, Path: path, Opacity: o.opacity, Scale: 1, Matrix: &own}
	switch kind := fabricType(t); kind {
	case "rect", "circle", "ellipse", "line", "triangle", "polygon", "polyline", "path":
		g.Layers, err = r.shape(m, kind, o)
	case "text", "itext", "textbox":
		g.Layers, err = r.text(m, kind, o)
	case "image":
		g.Layers, err = r.image(m, o)
	case "group":
		if depth+1 >= maxDepth {
			return nil, errorf(path, "nests groups more than %d deep", maxDepth-1)
		}
		outer := r.plane
		r.plane = full
		g.Layers, err = r.objects(m, depth+1)
		r.plane = outer
	default:
		return nil, errorf(m.pathOf("type"), "is not a fabric object Platen prints: %q (it prints rect, circle, ellipse, line, triangle, polygon, polyline, path, text, i-text, textbox, image and group)", t)
	}
	if err != nil {
		return nil, err
	}
	if bg, err := objectBackground(m, o); err != nil {
		return nil, err
	} else if bg != nil {
		g.Layers = append([]Layer{*bg}, g.Layers...)
	}
	var clippedAway bool
	if g.Clip, clippedAway, err = r.clipOf(m, full); err != nil || clippedAway {
		return nil, err
	}
	return []Layer{g}, nil
}

// objectBackground is an object's backgroundColor: fabric fills its box,
// its stroke's width counted, under what it draws. Nil for none.
func objectBackground(m members, o fabricObject) (*Layer, error) {
	c, err := fabricColorMember(m, "backgroundColor")
	if err != nil || c == nil {
		return nil, err
	}
	w, h := o.width+o.strokeWidth, o.height+o.strokeWidth
	if w <= 0 || h <= 0 {
		return nil, nil
	}
	l := pathLayer(m.pathOf("backgroundColor"), roundedRect(w, h, 0, 0), identity)
	l.Fill = c
	return &l, nil
}

// fabricObject is what every object has: its size, its transform, and how
// it paints.
type fabricObject struct {
	width, height float64
	strokeWidth   float64
	strokeUniform bool
	// own is the object's matrix in its parent's plane (the canvas's or its
	// group's): fabric's calcOwnMatrix.
	own     matrix
	opacity float64
	visible bool
	// scale is scaleX, scaleY as given; inGroup whether the object is in
	// a group (getObjectScaling reads the one or the other).
	scale   [2]float64
	inGroup bool
}

// common reads the members every fabric object has, refuses those it
// cannot print, and works out the object's matrix as fabric does. A clip
// path is read whatever its visible says: fabric clips with it anyway.
func (r *fabricReader) common(m members, clip bool) (fabricObject, error) {
	o := fabricObject{visible: true}
	if m.has("visible") {
		var err error
		if o.visible, err = m.boolean("visible"); err != nil {
			return o, err
		}
	}
	if !o.visible && !clip {
		return o, nil // prints nothing, however it would be drawn
	}
	if err := refuseUnprintable(m); err != nil {
		return o, err
	}
	n := func(name string, def float64) (float64, error) { return fabricNumber(m, name, def) }
	var err error
	var left, top, angle, sx, sy, skewX, skewY float64
	for _, v := range []struct {
		name string
		def  float64
		to   *float64
	}{{"left", 0, &left}, {"top", 0, &top}, {"width", 0, &o.width}, {"height", 0, &o.height},
		{"angle", 0, &angle}, {"scaleX", 1, &sx}, {"scaleY", 1, &sy}, {"skewX", 0, &skewX}, {"skewY", 0, &skewY},
		{"strokeWidth", 1, &o.strokeWidth}, {"opacity", 1, &o.opacity}} {
		if *v.to, err = n(v.name, v.def); err != nil {
			return o, err
		}
	}
	if o.opacity < 0 || o.opacity > 1 {
		return o, errorf(m.pathOf("opacity"), "must be from 0 to 1, got %s", shortNumber(o.opacity))
	}
	if o.strokeWidth < 0 {
		return o, errorf(m.pathOf("strokeWidth"), "must be 0 or more, got %s", shortNumber(o.strokeWidth))
	}
	if math.Abs(math.Mod(skewX, 180)) == 90 || math.Abs(math.Mod(skewY, 180)) == 90 {
		return o, errorf(m.pathOf("skewX"), "must not be 90°: the object would be infinitely long")
	}
	flipX, err := m.boolean("flipX")
	if err != nil {
		return o, err
	}
	flipY, err := m.boolean("flipY")
	if err != nil {
		return o, err
	}
	if o.strokeUniform, err = m.boolean("strokeUniform"); err != nil {
		return o, err
	}
	ox, oy, err := r.origins(m)
	if err != nil {
		return o, err
	}
	dims := dimensionsMatrix(sx, sy, flipX, flipY, skewX, skewY)
	size := o.transformedSize(dims, sx, sy, skewX, skewY)
	// translateToCenterPoint: from the origin to the centre, in the box as
	// scaled and skewed, then turned about the origin.
	cx, cy := left+(0-ox)*size[0], top+(0-oy)*size[1]
	if angle != 0 {
		cx, cy = rotateAbout(cx, cy, left, top, angle)
	}
	o.own = translate(cx, cy).mul(rotate(angle)).mul(dims)
	o.scale = [2]float64{sx, sy}
	return o, nil
}

// origins reads originX and originY as offsets from the centre, from -0.5
// (left, top) to 0.5 (right, bottom); a number n is n - 0.5, as fabric's
// resolveOrigin has it.
func (r *fabricReader) origins(m members) (float64, float64, error) {
	defX, defY := "left", "top"
	if r.major >= 7 {
		defX, defY = "center", "center"
	}
	x, err := fabricOrigin(m, "originX", defX, [3]string{"left", "center", "right"})
	if err != nil {
		return 0, 0, err
	}
	y, err := fabricOrigin(m, "originY", defY, [3]string{"top", "center", "bottom"})
	return x, y, err
}

// fabricOrigin reads an origin: one of words (the start, the middle, the
// end: -0.5, 0, 0.5 from the centre), def when absent, or a number n,
// n - 0.5.
func fabricOrigin(m members, name, def string, words [3]string) (float64, error) {
	s, err := m.text(name, def)
	if raw, ok := m.get(name); ok && raw[0] != '"' {
		v, err := fabricNumber(m, name, 0)
		return v - 0.5, err
	}
	if err != nil {
		return 0, err
	}
	for i, w := range words {
		if s == w {
			return float64(i)/2 - 0.5, nil
		}
	}
	return 0, errorf(m.pathOf(name), "must be %s or a number, got %q", orList(words[:]), s)
}

// transformedSize is fabric's _getTransformedDimensions: the box of the
// object's width and height, its stroke counted (before the scale, or
// after it with strokeUniform), as scaled and skewed.
func (o fabricObject) transformedSize(dims matrix, sx, sy, skewX, skewY float64) [2]float64 {
	pre, post := o.strokeWidth, 0.0
	if o.strokeUniform {
		pre, post = 0, o.strokeWidth
	}
	w, h := o.width+pre, o.height+pre
	if skewX == 0 && skewY == 0 {
		return [2]float64{w*sx + post, h*sy + post}
	}
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range [][2]float64{{-w / 2, -h / 2}, {w / 2, -h / 2}, {-w / 2, h / 2}, {w / 2, h / 2}} {
		x, y := dims.apply(p[0], p[1])
		x0, y0, x1, y1 = math.Min(x0, x), math.Min(y0, y), math.Max(x1, x), math.Max(y1, y)
	}
	return [2]float64{x1 - x0 + post, y1 - y0 + post}
}

// fabricNumbers reads each of names as fabricNumber does, 0 when absent.
func fabricNumbers(m members, names ...string) ([]float64, error) {
	out := make([]float64, len(names))
	for i, name := range names {
		v, err := fabricNumber(m, name, 0)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// fabricNumber reads a finite number within maxFabricNumber.
func fabricNumber(m members, name string, def float64) (float64, error) {
	v, err := m.number(name, def)
	if err != nil {
		return 0, err
	}
	if math.Abs(v) > maxFabricNumber {
		return 0, errorf(m.pathOf(name), "must be within ±%s, got %s", shortNumber(maxFabricNumber), shortNumber(v))
	}
	return v, nil
}

// unprintable are fabric properties that change what fabric draws and
// that Platen does not print, each with the value that draws nothing
// different (a property at that value, null or absent is fine) and why.
var unprintable = []struct {
	name, neutral, why string
}{
	{"shadow", "null", "shadows are not printed: a print file's shadow would be a raster of its own; draw it as a shape or into the image"},
	{"globalCompositeOperation", `"source-over"`, "blend modes are not printed: only source-over, fabric's default"},
	{"strokeDashOffset", "0", "a dash offset is not printed: start the dash pattern where it should begin"},
	{"inverted", "false", "inverted clip paths are not printed"},
	{"textBackgroundColor", `""`, "a text background colour is not printed: draw a rect under the text instead"},
	{"overline", "false", "overlines are not printed: underline and linethrough are"},
	{"deltaY", "0", "a baseline shift (deltaY) is not printed"},
	{"direction", `"ltr"`, "right-to-left text is not printed from a fabric canvas"},
	{"splitByGrapheme", "false", "splitByGrapheme is not printed: a textbox wraps between words"},
	{"exactBoundingBox", "false", "exactBoundingBox is not printed: a polyline is placed by its points' box, fabric's default"},
}

// refuseUnprintable refuses a property fabric would draw and Platen does not.
func refuseUnprintable(m members) error {
	for _, u := range unprintable {
		raw, ok := m.get(u.name)
		if !ok || strings.TrimSpace(string(raw)) == u.neutral || (u.neutral == `""` && emptyFabricValue(raw)) {
			continue
		}
		if u.neutral == "0" {
			if v, err := m.number(u.name, 0); err == nil && v == 0 {
				continue
			}
		}
		shown := "set"
		if raw[0] != '{' && raw[0] != '[' {
			shown = abbreviate(raw)
		}
		return errorf(m.pathOf(u.name), "is %s: %s", shown, u.why)
	}
	return nil
}

// clipOf reads m's clipPath into a clip in m's plane, whose matrix from
// the canvas's plane is full (not flat): the clip's outline mapped by its
// own matrix, and, when it is absolutePositioned (placed on the canvas,
// not on the object), back from the canvas's plane. away is true when
// the clip has no area (a clip scaled to nothing), which leaves nothing
// of what it clips.
func (r *fabricReader) clipOf(m members, full matrix) (clip *Shape, away bool, err error) {
	raw, ok := m.get("clipPath")
	if !ok || emptyFabricValue(raw) {
		return nil, false, nil
	}
	cm, err := object(raw, m.pathOf("clipPath"))
	if err != nil {
		return nil, false, err
	}
	if cm.has("clipPath") {
		return nil, false, errorf(cm.pathOf("clipPath"), "clips a clip path, which Platen does not print: give the object one clip path")
	}
	outline, err := r.clipOutline(cm, 0)
	if err != nil {
		return nil, false, err
	}
	if outline.Empty() {
		return nil, true, nil
	}
	absolute, err := cm.boolean("absolutePositioned")
	if err != nil {
		return nil, false, err
	}
	if absolute {
		back, _ := full.invert() // full is not flat: the caller drew nothing of a flat object
		outline = transformPath(outline, back)
	}
	b := outline.Bounds()
	shape := &Shape{Kind: CutPath, SVGPath: outline.String(), PathBox: [4]float64{b.X0, b.Y0, b.X1, b.Y1},
		Width: b.X1 - b.X0, Height: b.Y1 - b.Y0}
	if err := drawable(cm, []Layer{{Type: PathLayer, SVGPath: shape.SVGPath, PathBox: shape.PathBox}}); err != nil {
		return nil, false, err
	}
	return shape, false, nil
}

// clipOutline is a clip path object's outline in its parent's plane: a
// shape's, or a group's shapes' together.
func (r *fabricReader) clipOutline(cm members, depth int) (*canvas.Path, error) {
	t, err := cm.text("type", "")
	if err != nil {
		return nil, err
	}
	o, err := r.common(cm, depth == 0)
	if err != nil {
		return nil, err
	}
	// fabric clips with the clip path itself whatever it says, but draws
	// into it only its group's members that are visible; nothing of one
	// scaled to nothing.
	if (depth > 0 && (!o.visible || o.opacity == 0)) || flat(o.own) {
		return &canvas.Path{}, nil
	}
	var outline *canvas.Path
	switch kind := fabricType(t); kind {
	case "rect", "circle", "ellipse", "line", "triangle", "polygon", "polyline", "path":
		if outline, err = r.outline(cm, kind, o); err != nil {
			return nil, err
		}
	case "group":
		if depth+1 >= maxDepth {
			return nil, errorf(cm.path, "nests groups more than %d deep", maxDepth-1)
		}
		raw, _ := cm.get("objects")
		list, err := array(raw, cm.pathOf("objects"))
		if err != nil {
			return nil, err
		}
		outline = &canvas.Path{}
		for i, item := range list {
			im, err := object(item, fmt.Sprintf("%s[%d]", cm.pathOf("objects"), i))
			if err != nil {
				return nil, err
			}
			part, err := r.clipOutline(im, depth+1)
			if err != nil {
				return nil, err
			}
			outline = outline.Append(part)
		}
	default:
		return nil, errorf(cm.pathOf("type"), "is not a clip path Platen prints: %q (it clips to rect, circle, ellipse, triangle, polygon, polyline, path, or a group of them)", t)
	}
	return transformPath(outline, o.own), nil
}

// transformPath is p mapped by m; nothing when m is flat.
func transformPath(p *canvas.Path, m matrix) *canvas.Path {
	if flat(m) {
		return &canvas.Path{}
	}
	return p.Copy().Transform(canvas.Matrix{{m[0], m[2], m[4]}, {m[1], m[3], m[5]}})
}
