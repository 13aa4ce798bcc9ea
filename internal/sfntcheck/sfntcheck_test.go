package sfntcheck_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/image/font/gofont/goregular"

	"github.com/platen-print/platen/internal/sfntcheck"
	"github.com/platen-print/platen/internal/sfntcheck/sfnttest"
)

// TestCompositeBombs: a glyph that would outline past the bounds is
// refused naming the glyph and the bound, whichever glyph holds it; one
// just within them passes.
func TestCompositeBombs(t *testing.T) {
	for name, tc := range map[string]struct {
		bomb sfnttest.Bomb
		want string // "" when the font passes
	}{
		"the issue's bomb: 4 references 8 deep": {sfnttest.Bomb{Rune: 'A', Depth: 8, Fanout: 4, Points: 5000}, "outline points through its composite components; at most 65535 are allowed"},
		"on a glyph no upload outlines":         {sfnttest.Bomb{Rune: 'Q', Depth: 8, Fanout: 4, Points: 5000}, "outline points through its composite components; at most 65535 are allowed"},
		"too deep":                              {sfnttest.Bomb{Rune: 'A', Depth: 9, Fanout: 1, Points: 4}, "nests composite glyphs more than 8 deep; at most 8 are allowed"},
		"far too deep":                          {sfnttest.Bomb{Rune: 'A', Depth: 500, Fanout: 1, Points: 4}, "nests composite glyphs more than 8 deep; at most 8 are allowed"},
		"wide and empty":                        {sfnttest.Bomb{Rune: 'A', Depth: 2, Fanout: 1000, Points: 1}, "composite component references; at most 4096 are allowed"},
		"8 deep, within the bounds":             {sfnttest.Bomb{Rune: 'A', Depth: 8, Fanout: 1, Points: 65535}, ""},
		"wide, within the bounds":               {sfnttest.Bomb{Rune: 'A', Depth: 2, Fanout: 60, Points: 18}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			data, _, err := tc.bomb.Build(goregular.TTF)
			if err != nil {
				t.Fatal(err)
			}
			err = sfntcheck.Check(data)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("%v; want %q", err, tc.want)
			case tc.want != "" && tc.bomb.Depth < 100 && !strings.HasPrefix(err.Error(), "glyph "):
				t.Errorf("%v; want it to name a glyph", err)
			}
		})
	}
}

// TestDamagedStructure: composites that refer to themselves or to glyphs
// the font lacks, and glyphs outside their table, are refused with a
// reason.
func TestDamagedStructure(t *testing.T) {
	font, glyph, err := sfnttest.Bomb{Rune: 'A', Depth: 1, Fanout: 2, Points: 4}.Build(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	glyf, loca := table(t, font, "glyf"), table(t, font, "loca")
	first := glyf[binary.BigEndian.Uint32(loca[4*glyph:]):]
	component := first[10+2:] // the first component's glyph index
	for name, tc := range map[string]struct {
		edit func(f []byte)
		want string
	}{
		"itself":        {func([]byte) { binary.BigEndian.PutUint16(component, uint16(glyph)) }, "contains itself through its composite components"},
		"missing glyph": {func([]byte) { binary.BigEndian.PutUint16(component, 0xfff0) }, "the font cannot be read: a composite glyph refers to glyph 65520, which the font does not have"},
		"past glyf":     {func([]byte) { binary.BigEndian.PutUint32(loca[4*glyph+4:], 0x7fffffff) }, "the font cannot be read: glyph "},
	} {
		saved := append([]byte(nil), font...)
		tc.edit(font)
		err := sfntcheck.Check(font)
		copy(font, saved)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", name, err, tc.want)
		}
	}
}

func table(t *testing.T, font []byte, tag string) []byte {
	t.Helper()
	n := int(binary.BigEndian.Uint16(font[4:]))
	for i := range n {
		rec := font[12+16*i:]
		if string(rec[:4]) == tag {
			off, length := binary.BigEndian.Uint32(rec[8:]), binary.BigEndian.Uint32(rec[12:])
			return font[off : off+length]
		}
	}
	t.Fatalf("no %s table", tag)
	return nil
}

// TestInstalledFontsPass: every TrueType and OpenType font Debian's
// packages installed here passes, the renderer's fallback fonts and the
// CFF (OTF) fonts of fonts-urw-base35 among them, each checked
// allocating little.
func TestInstalledFontsPass(t *testing.T) {
	files, _ := filepath.Glob("/usr/share/fonts/*/*/*.[ot]tf")
	for _, want := range []string{"NotoSans-Regular.ttf", "DroidSansFallbackFull.ttf", "NanumGothic.ttf", "Symbola_hint.ttf", "DejaVuSans.ttf", "NimbusSans-Regular.otf"} {
		if !strings.Contains(strings.Join(files, "\n"), "/"+want) {
			t.Errorf("%s is not installed (make install-test-tools)", want)
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := sfntcheck.Check(data); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if got := allocated(func() { _ = sfntcheck.Check(data) }); got > 1<<20 {
			t.Errorf("%s: checking it allocated %d bytes", f, got)
		}
	}
}

// allocated is what f allocates on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
