package designdoc

import (
	"strings"
	"testing"
)

// TestOneReading: the findings the design model was rebuilt for, each
// of which the API accepted while the print did something else (two
// validators with different rules). The API now reads a document with
// Parse, as the renderer does: what it accepts is what renders.
func TestOneReading(t *testing.T) {
	t.Run("a raw JSON template_config is never URL-decoded", func(t *testing.T) {
		d, err := ParseConfig(`{"width": 50, "height": 50, "layers": [{"type": "text", "text": "1+1=2, 50% off", "size": 12}]}`)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Surfaces[0].Layers[0].Text; got != "1+1=2, 50% off" {
			t.Errorf("the text reads %q", got)
		}
	})
	refused := map[string]string{
		"surfaces and layers both given": `{"width": 50, "height": 50, "layers": [], "surfaces": [{"layers": []}]}`,
		"a width of 0":                   `{"width": 0, "height": 50, "layers": []}`,
		"a text size of 0":               `{"width": 50, "height": 50, "layers": [{"type": "text", "text": "a", "size": 0}]}`,
		"a rect width of 0":              `{"width": 50, "height": 50, "layers": [{"type": "rect", "width": 0, "height": 5, "fill": "#000"}]}`,
		"a radius on a text layer":       `{"width": 50, "height": 50, "layers": [{"type": "text", "text": "a", "size": 5, "radius": -1}]}`,
		"a dpi of 300.5":                 `{"width": 50, "height": 50, "dpi": 300.5, "layers": []}`,
		"a misspelt member":              `{"width": 50, "height": 50, "layers": [{"type": "rect", "width": 5, "height": 5, "fill": "#000", "colour": "#fff"}]}`,
	}
	for name, doc := range refused {
		t.Run(name+" is refused by the API", func(t *testing.T) {
			if _, err := Accept(doc); err == nil {
				t.Fatal("accepted")
			}
		})
	}
	t.Run("line_height is read and used", func(t *testing.T) {
		d, err := Parse([]byte(`{"width": 50, "height": 50, "layers": [{"type": "text", "text": "a", "size": 10, "line_height": 1.5}]}`))
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Surfaces[0].Layers[0].LineHeight; got != 1.5 {
			t.Errorf("line_height %v", got)
		}
	})
	t.Run("what the API refuses names the member", func(t *testing.T) {
		_, err := Accept(`{"width": 50, "height": 50, "surfaces": [{"layers": []}, {"layers": [{"type": "group", "layers": [{"type": "ellipse", "width": 5, "height": -1, "fill": "#000"}]}]}]}`)
		field, msg := FieldOf("items[0].template_config", err)
		if field != "items[0].template_config.surfaces[1].layers[0].layers[0].height" || !strings.Contains(msg, "got -1") {
			t.Errorf("%s: %s", field, msg)
		}
	})
}

// TestParseNewMembers reads one of each new member and type.
func TestParseNewMembers(t *testing.T) {
	d, err := Parse([]byte(`{"width": 100, "height": 100, "meta": {"editor": 1}, "layers": [
	  {"type": "ellipse", "x": 1, "y": 2, "width": 3, "height": 4, "fill": {"radial": {"cx": 0.2, "stops": [[0, "#fff"], [1, "cmyk(0,0,0,100)"]]}}, "clip": {"shape": "ellipse", "width": 2, "height": 2}},
	  {"type": "line", "x1": 1, "y1": 2, "x2": 3, "y2": 4, "stroke": "#000", "stroke_width": 1, "dash": [1], "line_cap": "round"},
	  {"type": "path", "d": "M0 0 L24 0 L12 20 Z", "view_box": [0, 0, 24, 24], "x": 5, "y": 5, "width": 10, "height": 10, "fill": "#000", "fill_rule": "evenodd", "line_join": "bevel"},
	  {"type": "group", "x": 10, "y": 10, "rotation": 45, "scale": 2, "opacity": 0.5, "layers": [
	    {"type": "text", "spans": [{"text": "A"}, {"text": "da", "font": "Go-Bold", "size": 20, "color": "#f00", "underline": true}], "size": 12, "width": 50, "height": 20, "fit": "shrink", "max_lines": 1, "letter_spacing": 50, "valign": "middle", "linethrough": true}
	  ]},
	  {"type": "image", "src": "https://x/a.png", "width": 10, "height": 10, "crop": {"x": 1, "y": 2, "width": 3, "height": 4}, "flip": "xy", "grayscale": true}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	ls := d.Surfaces[0].Layers
	if g := ls[0].FillGradient; g == nil || !g.Radial || g.CX != 0.2 || !g.CMYK() || ls[0].Clip.Kind != CutEllipse {
		t.Errorf("ellipse %+v", ls[0])
	}
	if l := ls[1]; l.X2 != 3 || l.Y2 != 4 || len(l.Dash) != 1 || l.LineCap != "round" {
		t.Errorf("line %+v", l)
	}
	if l := ls[2]; l.ViewBox == nil || l.PathBox != [4]float64{0, 0, 24, 20} || l.FillRule != "evenodd" || l.LineJoin != "bevel" {
		t.Errorf("path %+v", l)
	}
	g := ls[3]
	text := g.Layers[0]
	if g.Scale != 2 || g.Opacity != 0.5 || len(text.Spans) != 2 || text.Text != "Ada" || text.Spans[1].Size != 20 ||
		!text.Spans[1].Underline || text.Spans[0].Underline || !text.Spans[0].Linethrough || !text.Shrink || text.MaxLines != 1 {
		t.Errorf("group %+v, text %+v", g, text)
	}
	if img := ls[4]; *img.Crop != [4]float64{1, 2, 3, 4} || !img.FlipX || !img.FlipY || !img.Grayscale {
		t.Errorf("image %+v", img)
	}
	if got := d.Fonts(); strings.Join(got, ",") != "Go-Regular,Go-Bold" {
		t.Errorf("fonts %v", got)
	}
}

// TestParseLimits: the bounds that keep a render's work finite.
func TestParseLimits(t *testing.T) {
	nest := func(depth int) string {
		return strings.Repeat(`{"type": "group", "layers": [`, depth) + strings.Repeat(`]}`, depth)
	}
	many := strings.TrimSuffix(strings.Repeat(`{"type": "rect", "width": 1, "height": 1, "fill": "#000"},`, 300), ",")
	bigPath := "M 0 0" + strings.Repeat(" L 1 1", 50_000)
	cases := map[string]string{
		`{"width": 10, "height": 10, "layers": [` + nest(9) + `]}`:                                                                          "nests groups more than 8 deep",
		`{"width": 10, "height": 10, "layers": [{"type": "group", "layers": [` + many + `]}, {"type": "group", "layers": [` + many + `]}]}`: "more than 500 layers",
		`{"width": 10, "height": 10, "layers": [{"type": "path", "fill": "#000", "d": "` + bigPath + `"}]}`:                                 "must be at most 256 KB",
		`{"width": 10, "height": 10, "layers": [{"type": "text", "size": 5, "spans": []}]}`:                                                 "must hold 1 to 500 spans",
		`{"width": 10, "height": 10, "layers": [{"type": "text", "size": 5, "letter_spacing": 9000}]}`:                                      "must be from -500 to 5000",
		`{"width": 10, "height": 10, "layers": [{"type": "text", "size": 5, "max_lines": 2}]}`:                                              `applies with fit "shrink"`,
		`{"width": 10, "height": 10, "layers": [{"type": "text", "size": 5, "fit": "shrink", "width": 5}]}`:                                 "needs height or max_lines",
		`{"width": 10, "height": 10, "layers": [{"type": "text", "size": 5, "valign": "middle"}]}`:                                          "needs height",
		`{"width": 10, "height": 10, "layers": [{"type": "text", "size": 5, "text": "a", "spans": [{"text": "b"}]}]}`:                       "cannot be given with spans",
	}
	for doc, want := range cases {
		if _, err := Parse([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.80s…: %v, want %q", doc, err, want)
		}
	}
}

// TestInvalidUTF8ReadsAsReplacement: a string's invalid UTF-8 reads as
// U+FFFD, as encoding/json reads it, whichever way the string is read, so
// that no reader after the parse (protobuf's among them) meets it.
func TestInvalidUTF8ReadsAsReplacement(t *testing.T) {
	d, err := Parse([]byte("{\"width\":1,\"height\":1,\"layers\":[{\"type\":\"image\",\"src\":\"data:\xff\",\"width\":1,\"height\":1}]}"))
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Surfaces[0].Layers[0].Src; got != "data:\uFFFD" {
		t.Errorf("src %q", got)
	}
}
