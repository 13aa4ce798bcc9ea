package designdoc

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// fabricDoc wraps objects (JSON) in a 100 × 70 mm fabric document of an
// 800 × 560 canvas saved by fabric 7.
func fabricDoc(objects string) string {
	return `{"format": "fabric", "width": 100, "height": 70, "bleed": 2, "canvas": {"width": 800, "height": 560},
		"fabric": {"version": "7.4.0", "objects": [` + objects + `]}}`
}

func parseFabricDoc(t *testing.T, doc string) *Document {
	t.Helper()
	d, err := Parse([]byte(doc))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return d
}

// objectGroup is the group the canvas's first object became.
func objectGroup(t *testing.T, d *Document) Layer {
	t.Helper()
	page := d.Surfaces[0].Layers[0]
	if page.Matrix == nil || len(page.Layers) == 0 {
		t.Fatalf("the surface's page group holds no object: %+v", page)
	}
	return page.Layers[0]
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestFabricCanvasMapsOntoTheTrimBox(t *testing.T) {
	d := parseFabricDoc(t, `{"format": "fabric", "width": 100, "height": 70, "bleed": 2, "canvas": {"width": 800, "height": 560},
		"fabric": {"version": "7.4.0", "background": "#f2e8d5", "objects": []}}`)
	layers := d.Surfaces[0].Layers
	if len(layers) != 1 || len(layers[0].Layers) != 1 {
		t.Fatalf("got %d layers, want the page group holding the background", len(layers))
	}
	if m := *layers[0].Matrix; m != [6]float64{0.125, 0, 0, 0.125, 0, 0} {
		t.Errorf("page matrix = %v, want 100 mm / 800 px = 0.125", m)
	}
	// The bleed box in canvas pixels: 2 mm is 16 px.
	bg := layers[0].Layers[0]
	if bg.Type != RectLayer || bg.X != -16 || bg.Y != -16 || bg.Width != 832 || bg.Height != 592 || *bg.Fill != (Color{R: 0xf2, G: 0xe8, B: 0xd5, A: 255}) {
		t.Errorf("background = %+v, want a #f2e8d5 rect over the bleed box", bg)
	}
}

// The object matrices below are worked out by hand from fabric 7.4.0's
// calcOwnMatrix and translateToCenterPoint; the fabric fidelity suite
// (package render) checks the same against fabric drawing them.
func TestFabricObjectMatrixIsFabrics(t *testing.T) {
	for _, c := range []struct {
		name, object string
		want         [6]float64
	}{
		{"a centred rect", `{"type": "Rect", "left": 400, "top": 280, "width": 100, "height": 50, "strokeWidth": 0}`,
			[6]float64{1, 0, 0, 1, 400, 280}},
		{"by its top-left corner, its stroke counted", `{"type": "Rect", "left": 10, "top": 20, "width": 100, "height": 50, "originX": "left", "originY": "top", "strokeWidth": 2}`,
			[6]float64{1, 0, 0, 1, 10 + 51, 20 + 26}},
		{"scaled and flipped", `{"type": "Rect", "left": 0, "top": 0, "width": 100, "height": 50, "originX": "left", "originY": "top", "strokeWidth": 0, "scaleX": 2, "scaleY": 3, "flipX": true}`,
			[6]float64{-2, 0, 0, 3, 100, 75}},
		{"turned about its origin", `{"type": "Rect", "left": 0, "top": 0, "width": 100, "height": 100, "originX": "left", "originY": "top", "strokeWidth": 0, "angle": 90}`,
			[6]float64{0, 1, -1, 0, -50, 50}},
		{"skewed", `{"type": "Rect", "left": 0, "top": 0, "width": 100, "height": 100, "strokeWidth": 0, "skewX": 45}`,
			[6]float64{1, 0, 1, 1, 0, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := objectGroup(t, parseFabricDoc(t, fabricDoc(c.object)))
			for i := range c.want {
				if !near(g.Matrix[i], c.want[i]) {
					t.Fatalf("matrix = %v, want %v", *g.Matrix, c.want)
				}
			}
		})
	}
}

func TestFabric5PlacesByTheTopLeftCorner(t *testing.T) {
	d := parseFabricDoc(t, `{"format": "fabric", "width": 100, "height": 70, "canvas": {"width": 800, "height": 560},
		"fabric": {"version": "5.3.0", "objects": [{"type": "circle", "left": 10, "top": 10, "radius": 50, "width": 100, "height": 100,
		"strokeWidth": 0, "startAngle": 0, "endAngle": 180, "fill": "red"}]}}`)
	g := objectGroup(t, d)
	if g.Matrix[4] != 60 || g.Matrix[5] != 60 {
		t.Errorf("centre = %v, %v, want 60, 60 (placed by its top-left corner)", g.Matrix[4], g.Matrix[5])
	}
	box := g.Layers[0].PathBox
	if !near(box[1], 0) || !near(box[3], 50) {
		t.Errorf("half circle's box = %v, want it from y 0 to 50: 180° is half a turn, clockwise from the right", box)
	}
}

func TestFabricStylesOfEachVersionAreTheSameSpans(t *testing.T) {
	text := `"text": "Hi Ada\nand Bo", "fontFamily": "Go-Regular", "fontSize": 40, "width": 300, "height": 100`
	v5 := `{"format": "fabric", "width": 100, "height": 70, "canvas": {"width": 800, "height": 560}, "fabric": {"version": "5.3.0", "objects": [
		{"type": "i-text", ` + text + `, "styles": {"0": {"3": {"fill": "red", "fontWeight": "bold"}, "4": {"fill": "red", "fontWeight": "bold"}, "5": {"fill": "red", "fontWeight": "bold"}}, "1": {"4": {"underline": true}}}}]}}`
	v7 := fabricDoc(`{"type": "IText", ` + text + `, "styles": [{"start": 3, "end": 6, "style": {"fill": "red", "fontWeight": "bold"}}, {"start": 10, "end": 11, "style": {"underline": true}}]}`)
	var got []string
	for _, doc := range []string{v5, v7} {
		l := objectGroup(t, parseFabricDoc(t, doc)).Layers[0]
		var spans []string
		for _, s := range l.Spans {
			spans = append(spans, fmt.Sprintf("%q %s %02x%02x%02x u=%v", s.Text, s.Font, s.Color.R, s.Color.G, s.Color.B, s.Underline))
		}
		got = append(got, strings.Join(spans, " | "))
	}
	want := `"Hi " Go-Regular 000000 u=false | "Ada\n" Go-Bold ff0000 u=false | "and " Go-Regular 000000 u=false | "B" Go-Regular 000000 u=true | "o" Go-Regular 000000 u=false`
	for i, g := range got {
		if g != want {
			t.Errorf("version %d's spans:\n got %s\nwant %s", []int{5, 7}[i], g, want)
		}
	}
}

func TestFabricTextIsSetFromItsSizes(t *testing.T) {
	l := objectGroup(t, parseFabricDoc(t, fabricDoc(`{"type": "Textbox", "text": "a\nb", "fontSize": 40, "lineHeight": 1.5, "width": 300, "fontFamily": "Go-Mono", "fontStyle": "italic"}`))).Layers[0]
	// fabric's calcTextHeight: 40 × 1.13 × 1.5 + 40 × 1.13.
	if wantH := 40*1.13*1.5 + 40*1.13; !near(l.Y, -wantH/2) || l.X != -150 {
		t.Errorf("text box at %v, %v, want -150, %v", l.X, l.Y, -wantH/2)
	}
	saved := objectGroup(t, parseFabricDoc(t, fabricDoc(`{"type": "Textbox", "text": "a b", "fontSize": 40, "width": 30, "height": 97.44}`))).Layers[0]
	if saved.Y != -97.44/2 {
		t.Errorf("text box's top = %v, want half the height the canvas saved (the lines as the browser wrapped them)", saved.Y)
	}
	if !l.Fabric || l.NoWrap || l.Font != "Go-Mono-Italic" || l.LineHeight != 1.5 {
		t.Errorf("text = %+v, want fabric's setting, wrapping, in Go-Mono-Italic", l.TextMembers)
	}
	// 40 canvas pixels, each 0.125 mm... in the canvas's plane a pixel is
	// one unit of the document (mm): 40 mm is 113.4 pt before the page's scale.
	if !near(l.FontSize, 40*72/25.4) {
		t.Errorf("size = %v pt, want %v", l.FontSize, 40*72/25.4)
	}
}

func TestFabricFontNames(t *testing.T) {
	for _, c := range []struct{ family, weight, style, want string }{
		{"Go-Regular", "normal", "normal", "Go-Regular"},
		{"Go-Regular", "bold", "normal", "Go-Bold"},
		{"Go-Regular", "normal", "italic", "Go-Italic"},
		{"Go-Regular", "bold", "oblique", "Go-BoldItalic"},
		{"Go-Mono", "bold", "normal", "Go-Mono-Bold"},
		{"Lobster", "normal", "normal", "Lobster"},
		{"Lobster", "bold", "italic", "Lobster-BoldItalic"},
	} {
		if got := FabricFontName(c.family, c.weight, c.style); got != c.want {
			t.Errorf("FabricFontName(%q, %q, %q) = %q, want %q", c.family, c.weight, c.style, got, c.want)
		}
	}
}

func TestFabricColours(t *testing.T) {
	for s, want := range map[string]*Color{
		"#c03030":             {R: 0xc0, G: 0x30, B: 0x30, A: 255},
		"#f00":                {R: 255, A: 255},
		"#ff000080":           {R: 255, A: 0x80},
		"rgb(192, 48, 48)":    {R: 192, G: 48, B: 48, A: 255},
		"rgba(0,0,255,0.5)":   {B: 255, A: 128},
		"hsl(120, 100%, 50%)": {G: 255, A: 255},
		"red":                 {R: 255, A: 255},
		"CornflowerBlue":      {R: 100, G: 149, B: 237, A: 255},
		"transparent":         nil,
		"":                    nil,
	} {
		got, ok := fabricColor(s)
		if !ok || (got == nil) != (want == nil) || (got != nil && *got != *want) {
			t.Errorf("fabricColor(%q) = %v, %v; want %v", s, got, ok, want)
		}
	}
	if _, ok := fabricColor("blurple"); ok {
		t.Error(`fabricColor("blurple") was read as a colour`)
	}
}

func TestFabricInvisibleObjectsPrintNothing(t *testing.T) {
	d := parseFabricDoc(t, fabricDoc(`{"type": "Rect", "width": 10, "height": 10, "visible": false, "shadow": {"color": "black", "blur": 5}}`))
	page := d.Surfaces[0].Layers[0]
	if len(page.Layers) != 0 {
		t.Errorf("an invisible object made %d layers", len(page.Layers))
	}
}

// Every property Platen cannot print is refused with the object's path
// and what to do instead: none is dropped.
func TestFabricRefusesWhatItCannotPrint(t *testing.T) {
	rect := func(extra string) string {
		return fabricDoc(`{"type": "Rect", "width": 10, "height": 10, "fill": "red"` + extra + `}`)
	}
	text := func(extra string) string {
		return fabricDoc(`{"type": "Textbox", "text": "Hi", "width": 100, "fontFamily": "Go-Regular"` + extra + `}`)
	}
	img := `{"type": "Image", "src": "data:image/png;base64,iVBORw0KGgo=", "width": 10, "height": 10`
	for _, c := range []struct{ name, doc, want string }{
		{"unknown type", fabricDoc(`{"type": "Star"}`),
			`fabric.objects[0].type: is not a fabric object Platen prints: "Star" (it prints rect, circle, ellipse, line, triangle, polygon, polyline, path, text, i-text, textbox, image and group)`},
		{"shadow", rect(`, "shadow": {"color": "rgba(0,0,0,0.3)", "blur": 10, "offsetX": 5, "offsetY": 5}`),
			`fabric.objects[0].shadow: is set: shadows are not printed: a print file's shadow would be a raster of its own; draw it as a shape or into the image`},
		{"blend mode", rect(`, "globalCompositeOperation": "multiply"`),
			`fabric.objects[0].globalCompositeOperation: is "multiply": blend modes are not printed: only source-over, fabric's default`},
		{"pattern", rect(`, "fill": {"source": "https://images.example.com/tile.png", "repeat": "repeat"}`),
			`fabric.objects[0].fill: is a pattern: Platen prints fills of one colour or a gradient; put the picture in an image clipped to the shape`},
		{"gradient stroke", rect(`, "stroke": {"type": "linear", "coords": {}, "colorStops": []}`),
			`fabric.objects[0].stroke: is a gradient or a pattern: Platen prints strokes in one colour`},
		{"object background", rect(`, "backgroundColor": "sparkly"`),
			`fabric.objects[0].backgroundColor: must be a CSS colour (#c03030, rgb(192, 48, 48), rgba(192, 48, 48, 0.5), hsl(0, 60%, 47%) or a name such as red), got "sparkly"`},
		{"dash offset", rect(`, "strokeDashOffset": 3`),
			`fabric.objects[0].strokeDashOffset: is 3: a dash offset is not printed: start the dash pattern where it should begin`},
		{"miter limit", rect(`, "stroke": "#000", "strokeMiterLimit": 10`),
			`fabric.objects[0].strokeMiterLimit: must be 4 (fabric's and SVG's default), got 10: Platen bevels mitres longer than 4 times the stroke's width`},
		{"filter", fabricDoc(img + `, "filters": [{"type": "Blur", "blur": 0.5}]}`),
			`fabric.objects[0].filters[0].type: is a filter Platen does not print: "Blur" (it prints Grayscale; apply the others to the image itself)`},
		{"blob image", fabricDoc(`{"type": "Image", "src": "blob:https://shop.example.com/1234", "width": 10, "height": 10}`),
			`fabric.objects[0].src: must be an http(s) or data: URL: a canvas saved with a blob: or relative URL cannot be fetched`},
		{"justify", text(`, "textAlign": "justify"`),
			`fabric.objects[0].textAlign: must be left, center or right, got "justify": Platen does not justify text`},
		{"outlined letters, some only", text(`, "styles": [{"start": 0, "end": 1, "style": {"stroke": "#000"}}]`),
			`fabric.objects[0].styles[0].style.stroke: outlines some letters only, which Platen does not print: give the whole text its stroke`},
		{"uniform outlines", text(`, "stroke": "#000", "strokeWidth": 2, "strokeUniform": true`),
			`fabric.objects[0].strokeUniform: is not printed on outlined text: give the letters' stroke its width as drawn`},
		{"text on a path", text(`, "path": {"type": "Path", "path": [["M", 0, 0], ["L", 100, 0]]}`),
			`fabric.objects[0].path: sets the text along a path, which Platen does not print: convert the text to a path in the customiser`},
		{"text background", text(`, "textBackgroundColor": "#ff0"`),
			`fabric.objects[0].textBackgroundColor: is "#ff0": a text background colour is not printed: draw a rect under the text instead`},
		{"overline", text(`, "overline": true`),
			`fabric.objects[0].overline: is true: overlines are not printed: underline and linethrough are`},
		{"right to left", text(`, "direction": "rtl"`),
			`fabric.objects[0].direction: is "rtl": right-to-left text is not printed from a fabric canvas`},
		{"a character's shadow", text(`, "styles": [{"start": 0, "end": 1, "style": {"deltaY": -5}}]`),
			`fabric.objects[0].styles[0].style.deltaY: is -5: a baseline shift (deltaY) is not printed`},
		{"a character's own property", text(`, "styles": [{"start": 0, "end": 1, "style": {"fontVariant": "small-caps"}}]`),
			`fabric.objects[0].styles[0].style.fontVariant: is not a character style Platen prints (it prints fill, fontFamily, fontWeight, fontStyle, fontSize, underline, linethrough)`},
		{"inverted clip", rect(`, "clipPath": {"type": "Circle", "radius": 5, "inverted": true}`),
			`fabric.objects[0].clipPath.inverted: is true: inverted clip paths are not printed`},
		{"text clip", rect(`, "clipPath": {"type": "Text", "text": "A"}`),
			`fabric.objects[0].clipPath.type: is not a clip path Platen prints: "Text" (it clips to rect, circle, ellipse, triangle, polygon, polyline, path, or a group of them)`},
		{"a clip path's clip path", rect(`, "clipPath": {"type": "Circle", "radius": 5, "clipPath": {"type": "Rect", "width": 2, "height": 2}}`),
			`fabric.objects[0].clipPath.clipPath: clips a clip path, which Platen does not print: give the object one clip path`},
		{"overlay", `{"format": "fabric", "width": 100, "height": 70, "canvas": {"width": 800, "height": 560}, "fabric": {"objects": [], "overlayColor": "rgba(0,0,0,0.2)"}}`,
			`fabric.overlayColor: is not printed: Platen prints no overlay over the canvas's objects; draw it as the last object instead`},
		{"old fabric", `{"format": "fabric", "width": 100, "height": 70, "canvas": {"width": 800, "height": 560}, "fabric": {"version": "4.6.0", "objects": []}}`,
			`fabric.version: must be a fabric.js version from 5 to 7 (as canvas.toJSON() writes it, "7.4.0"), got "4.6.0"`},
		{"proportions", `{"format": "fabric", "width": 100, "height": 70, "canvas": {"width": 800, "height": 600}, "fabric": {"objects": []}}`,
			`canvas.height: must give the canvas the trim's proportions (100 × 70 mm): 560 px for a width of 800 px, got 600`},
		{"no canvas", `{"format": "fabric", "width": 100, "height": 70}`,
			`fabric: is required: the canvas as fabric.js's canvas.toJSON() saved it (or surfaces, each with one)`},
		{"a layer's member", `{"format": "fabric", "width": 100, "height": 70, "layers": [], "canvas": {"width": 800, "height": 560}, "fabric": {"objects": []}}`,
			`layers: is not a member of a fabric document (its members: format, unit, width, height, bleed, dpi, missing_glyphs, canvas, fabric, surfaces, meta; keep your own data under meta)`},
		{"in a group, on the back", `{"format": "fabric", "width": 100, "height": 70, "surfaces": [{"name": "front", "canvas": {"width": 800, "height": 560}, "fabric": {"objects": []}},
			{"name": "back", "canvas": {"width": 800, "height": 560}, "fabric": {"objects": [{"type": "Group", "objects": [{"type": "Rect", "width": 5, "height": 5, "globalCompositeOperation": "screen"}]}]}}]}`,
			`surfaces[1].fabric.objects[0].objects[0].globalCompositeOperation: is "screen": blend modes are not printed: only source-over, fabric's default`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.doc))
			if err == nil {
				t.Fatalf("Parse accepted it; want %s", c.want)
			}
			if err.Error() != c.want {
				t.Errorf("Parse:\n got %s\nwant %s", err, c.want)
			}
		})
	}
}

// What a hostile or odd canvas gives: nothing drawn, or a 400, never a
// panic or a document the renderer then refuses.
func TestFabricDegenerateCanvases(t *testing.T) {
	t.Run("an object scaled to nothing draws nothing", func(t *testing.T) {
		d := parseFabricDoc(t, fabricDoc(`{"type": "Textbox", "text": "Hi", "width": 100, "scaleX": 0},
			{"type": "Rect", "width": 10, "height": 10, "scaleY": 1e-300, "strokeUniform": true, "stroke": "#000"}`))
		if n := len(d.Surfaces[0].Layers[0].Layers); n != 0 {
			t.Errorf("%d layers, want none", n)
		}
	})
	t.Run("a clip path scaled to nothing clips everything away", func(t *testing.T) {
		for _, clip := range []string{`{"type": "Circle", "radius": 40, "scaleY": 0}`, `{"type": "Path", "path": [["M", 0, 0], ["A", 5, 5, 0, 0, 1, 10, 0]], "scaleX": 0}`} {
			d := parseFabricDoc(t, fabricDoc(`{"type": "Rect", "width": 10, "height": 10, "fill": "red", "clipPath": `+clip+`}`))
			if n := len(d.Surfaces[0].Layers[0].Layers); n != 0 {
				t.Errorf("clip %s: %d layers, want none", clip, n)
			}
		}
		d := parseFabricDoc(t, `{"format": "fabric", "width": 100, "height": 70, "canvas": {"width": 800, "height": 560},
			"fabric": {"background": "#fff", "clipPath": {"type": "Rect", "width": 10, "height": 10, "scaleX": 0}, "objects": [{"type": "Rect", "width": 10, "height": 10}]}}`)
		if n := len(d.Surfaces[0].Layers[0].Layers); n != 0 {
			t.Errorf("a canvas clipped to nothing: %d layers, want none", n)
		}
	})
	t.Run("a hidden clip path still clips, as fabric's does", func(t *testing.T) {
		g := objectGroup(t, parseFabricDoc(t, fabricDoc(`{"type": "Rect", "width": 100, "height": 100, "fill": "red",
			"clipPath": {"type": "Circle", "radius": 20, "visible": false, "objects": []}}`)))
		if g.Clip == nil || !near(g.Clip.Width, 40) {
			t.Errorf("clip = %+v, want the 40 px circle", g.Clip)
		}
	})
	for _, c := range []struct{ name, doc, want string }{
		{"a gradient plane too flat to invert", fabricDoc(`{"type": "Rect", "width": 100, "height": 100, "fill": {"type": "linear", "coords": {"x1": 0, "y1": 0, "x2": 1, "y2": 0},
			"colorStops": [{"offset": 0, "color": "#fff"}, {"offset": 1, "color": "#000"}], "gradientTransform": [1e-5, 0, 0, 1e-5, 0, 0]}}`),
			`fabric.objects[0].fill: spreads over 1e-05 pixels a unit: the object's box, its percentage or the gradient's transform must give it from 0.001 to 1e+07`},
		{"an arc that reaches beyond any page", fabricDoc(`{"type": "Path", "path": [["M", 0, 0], ["L", 100, 100], ["A", 1e6, 1e-9, 45, 1, 0, 0, 0]], "fill": "red"}`),
			`fabric.objects[0]: reaches beyond any page: an arc's radii too unequal, or a point too far, to draw`},
		{"more style ranges than spans", fabricDoc(`{"type": "Textbox", "text": "Hi", "width": 100, "styles": [` + strings.Repeat(`{"start": 0, "end": 1, "style": {}},`, 500) + `{"start": 0, "end": 1, "style": {}}]}`),
			`fabric.objects[0].styles: must hold at most 500 ranges, got 501`},
		{"a decoration's own thickness", fabricDoc(`{"type": "Textbox", "text": "Hi", "width": 100, "underline": true, "textDecorationThickness": 400}`),
			`fabric.objects[0].textDecorationThickness: must be fabric's default, 66.667: Platen draws underlines and lines through a fifteenth of the size thick`},
		{"a decoration's own colour", fabricDoc(`{"type": "Textbox", "text": "Hi", "width": 100, "underline": true, "textDecorationColor": "blue"}`),
			`fabric.objects[0].textDecorationColor: is not printed: Platen draws underlines and lines through in the letters' colour`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Parse([]byte(c.doc)); err == nil || err.Error() != c.want {
				t.Errorf("Parse:\n got %v\nwant %s", err, c.want)
			}
		})
	}
}

// BenchmarkFabricStyleRanges: a textbox's styles ranges are read in one
// pass (each character against each range took 3.3 s for 200,000 empty
// ranges over 10,000 characters; ranges are now at most 500).
func BenchmarkFabricStyleRanges(b *testing.B) {
	ranges := make([]string, 500)
	for i := range ranges {
		ranges[i] = fmt.Sprintf(`{"start": 0, "end": %d, "style": {"fill": "red"}}`, 10_000)
	}
	doc := []byte(fabricDoc(`{"type": "Textbox", "text": "` + strings.Repeat("a", 9_999) + `", "width": 100, "styles": [` + strings.Join(ranges, ",") + `]}`))
	for b.Loop() {
		if _, err := Parse(doc); err != nil {
			b.Fatal(err)
		}
	}
}

// fabricFuzzSeeds are fabric canvases for FuzzParse to change a little:
// every object type, transforms, clips absolute and relative, gradients,
// styles of fabric 5 and 7, a flat object and a hidden clip.
var fabricFuzzSeeds = []string{
	fabricDoc(`{"type": "Rect", "left": 100, "top": 100, "width": 200, "height": 100, "rx": 10, "ry": 10, "fill": {"type": "linear", "coords": {"x1": 0, "y1": 0, "x2": 200, "y2": 0}, "colorStops": [{"offset": 0, "color": "#fff"}, {"offset": 1, "color": "red"}]}, "stroke": "#000", "strokeWidth": 4, "strokeUniform": true, "scaleX": 2, "skewX": 20, "angle": 30, "flipY": true, "paintFirst": "stroke"},
		{"type": "Group", "left": 500, "top": 300, "clipPath": {"type": "Circle", "radius": 50, "absolutePositioned": true}, "objects": [{"type": "Circle", "radius": 40, "startAngle": 0, "endAngle": 270, "counterClockwise": true}, {"type": "Path", "path": [["M", 0, 0], ["Q", 50, -40, 100, 0], ["Z"]]}, {"type": "Polyline", "points": [{"x": 0, "y": 0}, {"x": 30, "y": 40}]}]},
		{"type": "Textbox", "width": 300, "text": "Hello\nAda", "fontFamily": "Go-Regular", "fontWeight": 700, "stroke": "#fff", "styles": [{"start": 2, "end": 4, "style": {"fill": "red", "fontSize": 60}}]},
		{"type": "Image", "src": "data:image/png;base64,iVBORw0KGgo=", "width": 1, "height": 1, "filters": [{"type": "Grayscale"}], "backgroundColor": "yellow"},
		{"type": "Line", "x1": 0, "y1": 0, "x2": 100, "y2": 30, "stroke": "#333"}, {"type": "Triangle", "width": 50, "height": 40, "scaleY": 0}, {"type": "Ellipse", "rx": 30, "ry": 10, "clipPath": {"type": "Rect", "width": 5, "height": 5, "visible": false}}`),
	`{"format": "fabric", "width": 85, "height": 55, "surfaces": [{"name": "front", "canvas": {"width": 850, "height": 550}, "fabric": {"version": "5.3.0", "objects": [{"type": "i-text", "text": "Ada\nLovelace", "styles": {"1": {"0": {"fill": "red"}}}}]}}]}`,
}
