package designdoc

import (
	"net/url"
	"strings"
	"testing"
)

// reference is the design document's reference example.
const reference = `{
  "version": 1, "unit": "mm", "width": 210, "height": 297, "bleed": 3, "dpi": 300, "background": "#ffffff",
  "surfaces": [{"name": "front", "layers": [
    {"type": "image", "src": "https://example.com/photo.jpg", "x": 0, "y": 0, "width": 210, "height": 148, "fit": "cover", "rotation": 0, "opacity": 1},
    {"type": "text", "text": "Happy birthday, Ada", "font": "Go-Bold", "size": 24, "color": "#1a1a1a", "x": 15, "y": 170, "width": 180, "align": "center", "rotation": 0},
    {"type": "rect", "x": 10, "y": 160, "width": 190, "height": 40, "fill": "#f2e8d5", "stroke": "#000000", "stroke_width": 0.3, "radius": 2}
  ]}]
}`

func TestParseReference(t *testing.T) {
	d, err := ParseConfig(url.QueryEscape(reference))
	if err != nil {
		t.Fatal(err)
	}
	if d.Unit != Millimetre || d.Width != 210 || d.Height != 297 || d.Bleed != 3 || d.DPI != 300 ||
		*d.Background != (Color{R: 255, G: 255, B: 255, A: 255}) || len(d.Surfaces) != 1 || d.Surfaces[0].Name != "front" {
		t.Fatalf("document %+v", d)
	}
	img, text, rect := d.Surfaces[0].Layers[0], d.Surfaces[0].Layers[1], d.Surfaces[0].Layers[2]
	if img.Type != ImageLayer || img.Src != "https://example.com/photo.jpg" || img.Fit != "cover" || img.Height != 148 || img.Opacity != 1 {
		t.Errorf("image %+v", img)
	}
	if text.Type != TextLayer || text.Font != "Go-Bold" || text.FontSize != 24 || text.Align != "center" ||
		text.Color != (Color{R: 0x1a, G: 0x1a, B: 0x1a, A: 255}) || text.Path != "surfaces[0].layers[1]" {
		t.Errorf("text %+v", text)
	}
	if rect.Type != RectLayer || *rect.Fill != (Color{R: 0xf2, G: 0xe8, B: 0xd5, A: 255}) || rect.StrokeWidth != 0.3 || rect.Radius != 2 {
		t.Errorf("rect %+v", rect)
	}
}

func TestParseDefaultsAndUnits(t *testing.T) {
	d, err := Parse([]byte(`{"width": 4, "height": 6, "layers": [{"type": "rect", "width": 1, "height": 1, "fill": "#f00"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if d.Unit != Millimetre || d.DPI != 0 || d.Background != nil || len(d.Surfaces) != 1 || d.Surfaces[0].Layers[0].Path != "layers[0]" {
		t.Errorf("defaults %+v", d)
	}
	if got := (&Document{Unit: Inch}).ToMM(2); got != 50.8 {
		t.Errorf("2 in = %v mm", got)
	}
	if got := (&Document{Unit: Pixel, DPI: 300}).ToMM(600); got != 50.8 {
		t.Errorf("600 px at 300 dpi = %v mm", got)
	}
}

func TestParseErrors(t *testing.T) {
	const ok = `{"type": "rect", "width": 1, "height": 1, "fill": "#000"}`
	page := func(layers ...string) string {
		return `{"width": 100, "height": 100, "surfaces": [{"name": "front", "layers": [` + strings.Join(layers, ",") + `]}]}`
	}
	cases := map[string]string{
		`[]`:                                                                            "must be a JSON object",
		`{"width": 1, "height": 1}`:                                                     "surfaces: is required: give surfaces, or layers for a single surface",
		`{"version": 2, "width": 1}`:                                                    "version: must be 1, got 2",
		`{"unit": "cm", "width": 1}`:                                                    `unit: must be mm, in or px, got "cm"`,
		`{"height": 1}`:                                                                 "width: is required",
		`{"width": "210", "height": 1}`:                                                 `width: must be a number, got "210"`,
		`{"width": 0, "height": 1}`:                                                     "width: must be above 0 and at most 5000 mm, got 0",
		`{"width": 1, "height": 1, "bleed": -3}`:                                        "bleed: must be from 0 to 5000 mm, got -3",
		`{"width": 1, "height": 1, "dpi": 72.5}`:                                        "dpi: must be a whole number from 1 to 10000, got 72.5",
		`{"unit": "px", "width": 100, "height": 100}`:                                   "dpi: is required when unit is px: pixels need a resolution",
		`{"width": 6000, "height": 1}`:                                                  "width: must be above 0 and at most 5000 mm, got 6000",
		`{"width": 1, "height": 1, "background": "white"}`:                              `background: must be a colour such as #1a1a1a, #1a1a1a80, cmyk(0, 100, 100, 0) or spot(White, #ffffff), got "white"`,
		`{"width": 1, "height": 1, "surfaces": []}`:                                     "surfaces: must hold at least one surface",
		`{"width": 1, "height": 1, "surfaces": [{"name": "a"}]}`:                        "surfaces[0].layers: is required",
		`{"width": 1, "height": 1, "surfaces": [1]}`:                                    "surfaces[0]: must be a JSON object",
		`{"width": 1, "height": 1, "surfaces": {"layers": []}}`:                         "surfaces: must be an array",
		page(ok, ok, `{"type": "star"}`):                                                `surfaces[0].layers[2].type: must be a layer type (` + knownTypes + `), got "star"`,
		page(`{"width": 1}`):                                                            "surfaces[0].layers[0].type: is required: " + knownTypes,
		page(`{"type": "rect", "width": 1, "height": 1}`):                               "surfaces[0].layers[0]: paints nothing: give fill, or stroke with stroke_width",
		page(`{"type": "rect", "width": 1, "height": 1, "fill": "#12"}`):                `surfaces[0].layers[0].fill: must be a colour such as #1a1a1a, #1a1a1a80, cmyk(0, 100, 100, 0) or spot(White, #ffffff), got "#12"`,
		page(`{"type": "rect", "height": 1, "fill": "#000"}`):                           "surfaces[0].layers[0].width: is required",
		page(`{"type": "rect", "width": 1, "height": 1, "fill": "#000", "radius": -1}`): "surfaces[0].layers[0].radius: must be from 0 to 10000 mm, got -1",
		page(`{"type": "image", "width": 1, "height": 1}`):                              "surfaces[0].layers[0].src: is required: an http(s) or data: URL of a PNG, JPEG, WebP or SVG image",
		page(`{"type": "image", "src": "file:///etc/passwd", "width": 1, "height": 1}`): "surfaces[0].layers[0].src: must be an http(s) or data: URL",
		page(`{"type": "image", "src": "https://x/a.png", "width": 1, "height": 1, "fit": "stretch"}`): `surfaces[0].layers[0].fit: must be cover, contain or fill, got "stretch"`,
		page(`{"type": "image", "src": "https://x/a.png", "width": 1, "height": 1, "opacity": 2}`):     "surfaces[0].layers[0].opacity: must be from 0 to 1, got 2",
		page(`{"type": "text", "text": "hi"}`):                                                         "surfaces[0].layers[0].size: is required",
		page(`{"type": "text", "text": 5, "size": 3}`):                                                 "surfaces[0].layers[0].text: must be a string, got 5",
		page(`{"type": "text", "text": "a", "size": 3, "align": "justify"}`):                           `surfaces[0].layers[0].align: must be left, center or right, got "justify"`,
		page(`{"type": "text", "text": "a", "size": 3, "x": true}`):                                    "surfaces[0].layers[0].x: must be a number, got true",
		`{"width": 1, "height": 1, "layers": [{"type": "text", "text": "a", "size": -1}]}`:             "layers[0].size: must be above 0 and at most 10000 pt, got -1",
	}
	for doc, want := range cases {
		_, err := Parse([]byte(doc))
		if err == nil || err.Error() != want {
			t.Errorf("Parse(%s)\n got %v\nwant %s", doc, err, want)
		}
	}
	if _, err := ParseConfig("%zz"); err == nil || !strings.HasPrefix(err.Error(), "template_config must be URL-encoded JSON") {
		t.Errorf("bad encoding: %v", err)
	}
}

func TestParseColor(t *testing.T) {
	for s, want := range map[string]Color{"#fff": {R: 255, G: 255, B: 255, A: 255}, "#1A2b3C": {R: 0x1a, G: 0x2b, B: 0x3c, A: 255}, "#00000080": {A: 0x80}} {
		if got, ok := ParseColor(s); !ok || got != want {
			t.Errorf("ParseColor(%q) = %v, %v", s, got, ok)
		}
	}
	for _, s := range []string{"", "fff", "#ff", "#fffff", "#ggg", "#1234567", "red"} {
		if got, ok := ParseColor(s); ok {
			t.Errorf("ParseColor(%q) = %v; want refused", s, got)
		}
	}
}

func TestParseInks(t *testing.T) {
	cases := map[string]Color{
		"cmyk(0, 100, 100, 0)":                          {R: 255, A: 255, Ink: &Ink{CMYK: [4]float64{0, 1, 1, 0}}},
		"CMYK(10%,20%,30%,40%)":                         {R: 138, G: 122, B: 107, A: 255, Ink: &Ink{CMYK: [4]float64{0.1, 0.2, 0.3, 0.4}}},
		"spot(White, #ffffff)":                          {R: 255, G: 255, B: 255, A: 255, Ink: &Ink{Spot: "White", Tint: 1, RGBFallback: true}},
		`spot("PANTONE 185 C", cmyk(0, 91, 76, 0), 50)`: {R: 255, G: 139, B: 158, A: 255, Ink: &Ink{Spot: "PANTONE 185 C", CMYK: [4]float64{0, 0.91, 0.76, 0}, Tint: 0.5}},
		"spot('Varnish', #e0e0e0, 0%)":                  {R: 255, G: 255, B: 255, A: 255, Ink: &Ink{Spot: "Varnish", Tint: 0, RGBFallback: true}},
	}
	for s, want := range cases {
		got, msg := parseColour(s)
		if msg != "" || got.R != want.R || got.G != want.G || got.B != want.B || got.A != want.A || got.Ink == nil || *got.Ink != *want.Ink {
			t.Errorf("%s: %+v %+v (%s), want %+v %+v", s, got, got.Ink, msg, want, want.Ink)
		}
	}
	refused := map[string]string{
		"cmyk(0, 100, 100)":      `cmyk() takes four ink amounts, cyan, magenta, yellow and black, from 0 to 100 %, got "cmyk(0, 100, 100)"`,
		"cmyk(0, 101, 0, 0)":     `cmyk() takes ink amounts from 0 to 100 %, got "101" in "cmyk(0, 101, 0, 0)"`,
		"cmyk(0, x, 0, 0)":       `cmyk() takes ink amounts from 0 to 100 %, got "x" in "cmyk(0, x, 0, 0)"`,
		"spot(White)":            `spot() takes a name, a fallback colour (#rrggbb or cmyk()) and, optionally, a tint from 0 to 100 %, got "spot(White)"`,
		"spot(, #fff)":           `a spot colour needs a name, in "spot(, #fff)"`,
		"spot(All, #000)":        `"All" and "None" are not spot colours: PDF gives them other meanings, in "spot(All, #000)"`,
		"spot(White, red)":       `the fallback of spot() must be #rrggbb or cmyk(), got "red" in "spot(White, red)"`,
		"spot(A, spot(B, #fff))": `the fallback of spot() must be #rrggbb or cmyk(), got "spot(B, #fff)" in "spot(A, spot(B, #fff))"`,
		"spot(White, #ffffff80)": `the fallback of spot() must be opaque: a tint, not an alpha, makes it lighter, got "#ffffff80"`,
		"spot(White, #fff, 150)": `the tint of spot() must be from 0 to 100 %, got "150" in "spot(White, #fff, 150)"`,
		"rgb(1, 2, 3)":           colourHint + `, got "rgb(1, 2, 3)"`,
		"spot(a\u0001b, #fff)":   `a spot colour needs a name, in "spot(a\\u0001b, #fff)"`,
	}
	delete(refused, "spot(a\u0001b, #fff)") // JSON escapes are the JSON decoder's; see below
	for s, want := range refused {
		if _, msg := parseColour(s); msg != want {
			t.Errorf("%s:\n got %s\nwant %s", s, msg, want)
		}
	}
	if _, msg := parseColour("spot(a\x01b, #fff)"); !strings.Contains(msg, "must not hold quotes, parentheses, commas or control characters") {
		t.Errorf("a control character in a spot name: %q", msg)
	}
}

func TestParseCutLayers(t *testing.T) {
	page := func(layer string) string {
		return `{"width": 100, "height": 100, "layers": [` + layer + `]}`
	}
	d, err := Parse([]byte(page(`{"type": "cut", "path": "M 0 0 L 40 0 L 20 30 Z", "x": 5}`)))
	if err != nil {
		t.Fatal(err)
	}
	if l := d.Surfaces[0].Layers[0]; l.Shape != CutPath || l.PathBox != [4]float64{0, 0, 40, 30} {
		t.Errorf("a path: %+v", l)
	}
	d, err = Parse([]byte(page(`{"type": "image", "src": "https://x/a.png", "width": 10, "height": 10, "cut_offset": 0}`)))
	if err != nil || !d.Surfaces[0].Layers[0].Cut {
		t.Errorf("cut_offset 0 is a contour on the art's edge: %+v %v", d, err)
	}
	cases := map[string]string{
		page(`{"type": "cut", "width": 10}`):                                                                 "layers[0].height: is required",
		page(`{"type": "cut", "shape": "star", "width": 10, "height": 10}`):                                  `layers[0].shape: must be rect, ellipse or path, got "star"`,
		page(`{"type": "cut", "shape": "path"}`):                                                             "layers[0].path: is required: SVG path data such as M 0 0 L 50 0 L 25 40 Z",
		page(`{"type": "cut", "path": "M 0 0 Q"}`):                                                           "layers[0].path: is not an SVG path: sets of 4 numbers should follow command 'Q' at position 8",
		page(`{"type": "cut", "path": "M 0 0 L 30000 0"}`):                                                   "layers[0].path: reaches 30000: its points must be from -10000 to 10000 mm",
		page(`{"type": "cut", "width": 10, "height": 10, "radius": -1}`):                                     "layers[0].radius: must be from 0 to 10000 mm, got -1",
		page(`{"type": "image", "src": "https://x/a.png", "width": 10, "height": 10, "cut_offset": 60}`):     "layers[0].cut_offset: must be from 0 to 50 mm, got 60",
		page(`{"type": "image", "src": "https://x/a.png", "width": 10, "height": 10, "underbase": "white"}`): `layers[0].underbase: ` + colourHint + `, got "white"`,
		page(`{"type": "rect", "width": 10, "height": 10, "fill": "#000", "overprint": "yes"}`):              `layers[0].overprint: must be true or false, got "yes"`,
		page(`{"type": "hexagon"}`):                                                                          `layers[0].type: must be a layer type (` + knownTypes + `), got "hexagon"`,
	}
	for doc, want := range cases {
		if _, err := Parse([]byte(doc)); err == nil || err.Error() != want {
			t.Errorf("%s\n got %v\nwant %s", doc, err, want)
		}
	}
}

// FuzzParse checks that no document makes the parser panic, and that what
// it accepts is something the renderer can draw.
func FuzzParse(f *testing.F) {
	f.Add([]byte(reference))
	f.Add([]byte(`{"width": 1, "height": 1, "layers": [{"type": "text", "text": "a", "size": 3}]}`))
	f.Add([]byte(`{"unit": "px", "dpi": 300, "width": 100, "height": 100, "surfaces": [{"layers": []}]}`))
	f.Add([]byte(`{"width": 1e308, "height": -0, "surfaces": [null]}`))
	// Valid documents of every layer type, unit and shape, for the fuzzer
	// to change a little rather than find from nothing.
	f.Add([]byte(`{"unit": "in", "width": 4, "height": 6, "bleed": 0.125, "background": "#fff", "layers": [{"type": "image", "src": "data:image/png;base64,iVBORw0KGgo=", "x": -0.1, "y": 0, "width": 4.2, "height": 3, "fit": "contain", "rotation": 90, "opacity": 0.5}]}`))
	f.Add([]byte(`{"width": 100, "height": 50, "surfaces": [{"name": "front", "layers": [{"type": "rect", "x": 5, "y": 5, "width": 90, "height": 40, "fill": "#f2e8d5", "stroke": "#000", "stroke_width": 0.3, "radius": 2}]}, {"name": "back", "layers": [{"type": "text", "text": "Back", "font": "Go-Bold", "size": 12, "color": "#1a1a1a80", "x": 10, "y": 10, "width": 80, "align": "right", "rotation": -30}]}]}`))
	f.Add([]byte(`{"unit": "px", "dpi": 150, "width": 1200, "height": 800, "layers": [{"type": "rect", "width": 1200, "height": 800, "fill": "#000"}, {"type": "image", "src": "https://example.com/a.jpg", "x": 100, "y": 100, "width": 400, "height": 300, "fit": "fill"}]}`))
	f.Add([]byte(`{"width": 60, "height": 60, "background": "cmyk(0, 0, 0, 10)", "layers": [{"type": "rect", "width": 60, "height": 8, "fill": "spot('PANTONE 185 C', cmyk(0, 91, 76, 0), 50%)", "overprint": true}, {"type": "image", "src": "https://example.com/s.png", "width": 40, "height": 40, "cut_offset": 2, "underbase": "spot(White, #ffffff)"}, {"type": "cut", "shape": "ellipse", "width": 50, "height": 30}, {"type": "cut", "path": "M 0 0 L 40 0 L 20 30 Z", "rotation": 45}]}`))
	for _, doc := range fabricFuzzSeeds {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		d, err := Parse(doc)
		if err != nil {
			if d != nil {
				t.Fatal("a document with an error")
			}
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		if d.Width <= 0 || d.Height <= 0 || d.Bleed < 0 || len(d.Surfaces) == 0 ||
			d.ToMM(d.Width) > maxPageMM || d.ToMM(d.Height) > maxPageMM || d.ToMM(d.Bleed) > maxPageMM {
			t.Fatalf("accepted an undrawable page: %+v", d)
		}
		d.Walk(func(l *Layer) {
			sized := l.Type != TextLayer && l.Type != LineLayer && l.Type != GroupLayer
			if l.Opacity < 0 || l.Opacity > 1 || (sized && (l.Width < 0 || l.Height < 0)) ||
				l.Rotation <= -360 || l.Rotation >= 360 || l.Scale <= 0 {
				t.Fatalf("accepted an undrawable layer: %+v", l)
			}
		})
	})
}
