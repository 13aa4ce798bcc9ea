package render

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"slices"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/designdoc"
)

func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// preflightOf parses a 100 mm square page (3 mm bleed) of layers and
// preflights it at 300 dpi with limits.
func preflightOf(t *testing.T, layers string, limits Limits) ([]Warning, error) {
	t.Helper()
	// 1181 px over 100 mm is exactly 300 ppi; 400 px is 102 ppi.
	r := New(images{"https://x/sharp.png": {Data: pngOf(t, 1181, 1181), Format: "png"},
		"https://x/soft.png": {Data: pngOf(t, 400, 400), Format: "png"}}, NewFonts(nil))
	doc, err := designdoc.Parse([]byte(`{"width": 100, "height": 100, "bleed": 3, "layers": [` + layers + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	return r.Preflight(context.Background(), doc, Settings{DPI: 300}, limits)
}

// Each class of warning on a design built to trigger it, and none on the
// same design done right.
func TestPreflightWarnings(t *testing.T) {
	cases := []struct {
		name, layer string
		want        string // the code, "" for none
		wantMessage string
	}{
		{"an image at the print's resolution", `{"type": "image", "src": "https://x/sharp.png", "x": 0, "y": 0, "width": 100, "height": 100, "fit": "cover"}`, "", ""},
		{"an image below it", `{"type": "image", "src": "https://x/sharp.png", "x": 0, "y": 0, "width": 150, "height": 150, "fit": "cover"}`, WarnLowResolution,
			"the 1181×1181 image is 200 ppi at its placed size, below the print's 300 dpi"},
		{"an image enlarged 3×", `{"type": "image", "src": "https://x/soft.png", "x": 0, "y": 0, "width": 100, "height": 100}`, WarnUpscaled,
			"the 400×400 image is enlarged 2.9× to print at 300 dpi (102 ppi at its placed size): it will look soft or blocky"},
		{"text well inside", `{"type": "text", "text": "Hello", "x": 20, "y": 40, "width": 60, "size": 12}`, "", ""},
		{"text near the left edge", `{"type": "text", "text": "Hello", "x": 1, "y": 40, "width": 60, "size": 12}`, WarnOutsideSafeArea,
			"its text comes within 3 mm of the trim edge, inside the safe margin: the cut may clip it"},
		{"text whose lines run past the bottom margin", `{"type": "text", "text": "Hello", "x": 20, "y": 92, "width": 60, "size": 24}`, WarnOutsideSafeArea, ""},
		{"text turned into the margin", `{"type": "text", "text": "Hello world", "x": 50, "y": 80, "width": 60, "size": 12, "rotation": 90}`, WarnOutsideSafeArea, ""},
		{"the same text unturned", `{"type": "text", "text": "Hello world", "x": 50, "y": 80, "width": 60, "size": 12}`, "", ""},
		{"a background running into the bleed", `{"type": "rect", "fill": "#ff0000", "x": -3, "y": -3, "width": 106, "height": 106}`, "", ""},
		{"a box stopping inside the margin", `{"type": "rect", "fill": "#ff0000", "x": 1, "y": 20, "width": 50, "height": 50}`, WarnOutsideSafeArea,
			"it comes within 3 mm of the trim edge, inside the safe margin: the cut may clip it"},
		{"a band bleeding left but stopping in the right margin", `{"type": "rect", "fill": "#ff0000", "x": -3, "y": 20, "width": 101, "height": 20}`, WarnOutsideSafeArea, ""},
		{"a 0.5 pt stroke", `{"type": "rect", "stroke": "#000000", "stroke_width": 0.18, "x": 20, "y": 20, "width": 50, "height": 50}`, "", ""},
		{"a hairline", `{"type": "rect", "stroke": "#000000", "stroke_width": 0.02, "x": 20, "y": 20, "width": 50, "height": 50}`, WarnHairline,
			"its stroke is 0.0567 pt wide, thinner than 0.1 pt: presses drop or break up such lines"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			found, err := preflightOf(t, tc.layer, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if len(found) > 0 {
					t.Fatalf("warnings %+v, want none", found)
				}
				return
			}
			if len(found) != 1 || found[0].Code != tc.want || found[0].Path != "layers[0]" {
				t.Fatalf("warnings %+v, want one %s on layers[0]", found, tc.want)
			}
			if tc.wantMessage != "" && found[0].Message != tc.wantMessage {
				t.Errorf("message %q, want %q", found[0].Message, tc.wantMessage)
			}
		})
	}
}

// A product's limits turn the warning into a failure naming the layer.
func TestPreflightLimits(t *testing.T) {
	soft := `{"type": "image", "src": "https://x/sharp.png", "x": 0, "y": 0, "width": 150, "height": 150, "fit": "cover"}`
	if _, err := preflightOf(t, soft, Limits{MinEffectivePPI: 150}); err != nil {
		t.Errorf("200 ppi against a minimum of 150: %v", err)
	}
	_, err := preflightOf(t, soft, Limits{MinEffectivePPI: 250})
	var limit *LimitError
	if !errors.As(err, &limit) || err.Error() != "layers[0]: the 1181×1181 image is 200 ppi at its placed size, below the minimum of 250 ppi set for this product" {
		t.Errorf("200 ppi against a minimum of 250: %v", err)
	}
	text := `{"type": "text", "text": "Hello", "x": 4, "y": 40, "width": 60, "size": 12}`
	if found, err := preflightOf(t, text, Limits{}); err != nil || len(found) != 0 {
		t.Errorf("text 4 mm in, default margin of 3 mm: %+v, %v", found, err)
	}
	_, err = preflightOf(t, text, Limits{SafeMarginMM: 5})
	if !errors.As(err, &limit) || limit.Code != WarnOutsideSafeArea || !strings.Contains(err.Error(), "within 5 mm of the trim edge") {
		t.Errorf("text 4 mm in, margin of 5 mm: %v", err)
	}
}

// A character no font has fails the print naming it, unless the document
// or the print's settings (a product's allow_missing_glyphs) allow it:
// then the preflight warns, and every way of making the print leaves it
// out instead of failing.
func TestMissingGlyphsTheSettingsAllow(t *testing.T) {
	r := New(images{}, NewFonts(nil))
	doc, err := designdoc.Parse([]byte(`{"width": 100, "height": 40, "layers": [{"type": "text", "text": "Ada \ue000", "size": 18, "x": 5, "y": 5, "width": 90}]}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sheet := []Sheet{{Placements: []Placement{{Doc: doc, Width: 100, Height: 40}}}}
	for name, print := range map[string]func(Settings) error{
		"preflight": func(s Settings) error { _, err := r.Preflight(ctx, doc, s, Limits{}); return err },
		"PDF":       func(s Settings) error { _, err := r.PDF(ctx, doc, s); return err },
		"PNG":       func(s Settings) error { _, err := r.PNG(ctx, doc, 0, s); return err },
		"sheets":    func(s Settings) error { _, err := r.Sheets(ctx, s, 100, 40, sheet); return err },
	} {
		const reason = `layers[0]: no font has the characters "\ue000" (U+E000); fonts tried: `
		if err := print(Settings{DPI: 72}); err == nil || !strings.Contains(err.Error(), reason) {
			t.Errorf("%s, not allowed: %v; want it to fail with %q", name, err, reason)
		}
		if err := print(Settings{DPI: 72, AllowMissingGlyphs: true}); err != nil {
			t.Errorf("%s, allowed: %v", name, err)
		}
	}
	found, err := r.Preflight(ctx, doc, Settings{DPI: 300, AllowMissingGlyphs: true}, Limits{SafeMarginMM: 1})
	want := []Warning{{Code: WarnMissingGlyphs, Path: "layers[0]", Message: `no font has the characters "\ue000": they print as nothing`}}
	if err != nil || !slices.Equal(found, want) {
		t.Errorf("preflight, allowed: %+v, %v; want %+v", found, err, want)
	}
}
