package render

import (
	"context"
	"strings"
	"testing"

	"golang.org/x/image/font/gofont/goregular"

	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/sfntcheck/sfnttest"
)

// TestFontBombFailsItsPrint: a composite glyph bomb that reached the
// renderer without an upload's check (a team's font stored before it, a
// --font-dir or fallback file) fails the print naming the font and the
// glyph, rather than outlining billions of points.
func TestFontBombFailsItsPrint(t *testing.T) {
	bomb, _, err := sfnttest.Bomb{Rune: 'A', Depth: 8, Fanout: 4, Points: 5000}.Build(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := designdoc.Parse([]byte(`{"width": 50, "height": 20, "layers": [{"type": "text", "text": "A", "font": "Bomb Sans", "size": 12, "x": 1, "y": 1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*Renderer{
		"a team's font": New(nil, NewFonts(nil)).WithFonts([]Added{added("Bomb Sans", bomb)}),
		"--font-dir":    New(nil, NewFonts(map[string][]byte{"Bomb Sans": bomb})),
	} {
		_, err := r.PDF(context.Background(), doc, Settings{})
		if err == nil || !strings.Contains(err.Error(), `font "Bomb Sans" cannot be used: glyph `) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
