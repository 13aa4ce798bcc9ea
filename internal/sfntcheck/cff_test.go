package sfntcheck_test

import (
	"bytes"
	"strings"
	"testing"

	sfnt "github.com/tdewolff/font"
	"golang.org/x/image/font/gofont/goregular"

	"github.com/platen-print/platen/internal/sfntcheck"
	"github.com/platen-print/platen/internal/sfntcheck/sfnttest"
)

// TestCFFSubroutineBombs: a CFF glyph whose subroutines call the next
// ones over and over, or nest past the charstring format's 10 levels, is
// refused naming the glyph and the bound, before anything is drawn; one
// within the bounds passes.
func TestCFFSubroutineBombs(t *testing.T) {
	for name, tc := range map[string]struct {
		bomb sfnttest.CFFBomb
		want string // "" when the font passes
	}{
		"the issue's bomb: 50 calls 9 deep": {sfnttest.CFFBomb{Rune: 'A', Depth: 9, Fanout: 50}, "through its subroutines; at most 65535 are allowed"},
		"on a glyph no upload draws":        {sfnttest.CFFBomb{Rune: 'Q', Depth: 9, Fanout: 50}, "through its subroutines; at most 65535 are allowed"},
		"points":                            {sfnttest.CFFBomb{Rune: 'A', Depth: 3, Fanout: 40, Lines: 24}, "expands to more than 65535 points through its subroutines"},
		"operators":                         {sfnttest.CFFBomb{Rune: 'A', Depth: 5, Fanout: 20}, "expands to more than 65535 operators through its subroutines"},
		"too deep":                          {sfnttest.CFFBomb{Rune: 'A', Depth: 11, Fanout: 1}, "nests subroutine calls more than 10 deep; at most 10 are allowed"},
		"far too deep":                      {sfnttest.CFFBomb{Rune: 'A', Depth: 900, Fanout: 1}, "nests subroutine calls more than 10 deep; at most 10 are allowed"},
		"10 deep, within the bounds":        {sfnttest.CFFBomb{Rune: 'A', Depth: 10, Fanout: 1}, ""},
		"wide, within the bounds":           {sfnttest.CFFBomb{Rune: 'A', Depth: 3, Fanout: 50}, ""},
		"many lines, within the bounds":     {sfnttest.CFFBomb{Rune: 'A', Depth: 3, Fanout: 30, Lines: 24}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			data, glyph, err := tc.bomb.Build(goregular.TTF)
			if err != nil {
				t.Fatal(err)
			}
			err = sfntcheck.Check(data)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("%v; want %q", err, tc.want)
			case tc.want != "" && !strings.HasPrefix(err.Error(), "glyph "):
				t.Errorf("%v; want it to name a glyph", err)
			case tc.want == "":
				// The font library draws what passes, all of it: the
				// bombs are what they say.
				lines := drawn(t, data, glyph)
				if want := pow(tc.bomb.Fanout, tc.bomb.Depth-1) * max(tc.bomb.Lines, 1); lines != want {
					t.Errorf("the library drew %d lines; want %d", lines, want)
				}
			}
		})
	}
}

// TestCFFSubroutineMisuse: subroutines that call themselves, calls that
// take a number their charstring did not push, calls of subroutines the
// font lacks, and CFF2 outlines are refused with a reason.
func TestCFFSubroutineMisuse(t *testing.T) {
	call := func(n int) []byte { return sfnttest.Charstring(sfnttest.Num(n-107), sfnttest.OpCallsubr) }
	glyph := func(parts ...any) []byte {
		head := []any{sfnttest.Num(0), sfnttest.Num(0), sfnttest.OpRmoveto}
		return sfnttest.Charstring(append(append(head, parts...), sfnttest.OpEndchar)...)
	}
	ret := []byte{sfnttest.OpReturn}
	for name, tc := range map[string]struct {
		otf  sfnttest.OTF
		want string
	}{
		"calls itself": {
			sfnttest.OTF{Glyphs: map[rune][]byte{'A': glyph(call(0))}, Subrs: [][]byte{sfnttest.Charstring(call(0), ret)}},
			"calls local subroutine 0 from within itself",
		},
		"calls itself through another": {
			sfnttest.OTF{Glyphs: map[rune][]byte{'A': glyph(call(0))}, Subrs: [][]byte{sfnttest.Charstring(call(1), ret), sfnttest.Charstring(call(0), ret)}},
			"calls local subroutine 0 from within itself",
		},
		"a number its caller pushed": {
			sfnttest.OTF{Glyphs: map[rune][]byte{'A': glyph(sfnttest.Num(-106), call(0))}, Subrs: [][]byte{sfnttest.Charstring(sfnttest.OpCallsubr, ret), ret}},
			"calls a subroutine whose number it does not push itself",
		},
		"a subroutine the font lacks": {
			sfnttest.OTF{Glyphs: map[rune][]byte{'A': glyph(call(7))}, Subrs: [][]byte{ret}},
			"the font cannot be read: glyph 36's charstring calls local subroutine 7, which the font does not have",
		},
	} {
		data, _, err := tc.otf.Build(goregular.TTF)
		if err != nil {
			t.Fatal(err)
		}
		if err := sfntcheck.Check(data); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", name, err, tc.want)
		}
	}
	data, _, err := sfnttest.CFFBomb{Rune: 'A', Depth: 2, Fanout: 2}.Build(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(data[:12+16*int(data[5])], []byte("CFF "))
	copy(data[at:], "CFF2")
	if err := sfntcheck.Check(data); err == nil || !strings.Contains(err.Error(), "CFF2") {
		t.Errorf("a CFF2 font: %v", err)
	}
}

// drawn is how many lines the font library draws for glyph id of font.
func drawn(t *testing.T, font []byte, id int) int {
	t.Helper()
	f, err := sfnt.ParseSFNT(font, 0)
	if err != nil {
		t.Fatal(err)
	}
	var p lineCounter
	if err := f.GlyphPath(&p, uint16(id), 0, 0, 0, 1, sfnt.NoHinting); err != nil { //nolint:gosec // a glyph id
		t.Fatal(err)
	}
	return p.lines
}

type lineCounter struct{ lines int }

func (p *lineCounter) MoveTo(float64, float64)                                     {}
func (p *lineCounter) LineTo(float64, float64)                                     { p.lines++ }
func (p *lineCounter) QuadTo(float64, float64, float64, float64)                   {}
func (p *lineCounter) CubeTo(float64, float64, float64, float64, float64, float64) {}
func (p *lineCounter) Close()                                                      {}

func pow(b, e int) int {
	n := 1
	for range e {
		n *= b
	}
	return n
}
