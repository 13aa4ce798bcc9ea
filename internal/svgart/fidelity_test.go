package svgart

import (
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/testtools"
)

// The fidelity test draws each logo of testdata/logos through svgart and
// Platen's PDF writer, rasterises the PDF with pdftoppm, and compares it
// with rsvg-convert's raster of the same SVG at the same pixel size.
const (
	// fidelityScale is the raster's pixels per CSS pixel of the SVG.
	fidelityScale = 2
	// pixelTolerance is how far (0–255, any channel) a pixel may be from
	// rsvg's before it counts as off: anti-aliasing differs between
	// poppler and cairo along every edge.
	pixelTolerance = 64
	// maxOffShare is the share of pixels that may be off per logo.
	maxOffShare = 0.01
)

// offShare is the share of pixels of a and b (the same size) whose
// colours differ by more than tol in any channel.
func offShare(a, b image.Image, tol int) float64 {
	r := a.Bounds()
	if r.Size() != b.Bounds().Size() {
		return 1
	}
	off := 0
	for y := 0; y < r.Dy(); y++ {
		for x := 0; x < r.Dx(); x++ {
			r1, g1, b1, _ := a.At(r.Min.X+x, r.Min.Y+y).RGBA()
			r2, g2, b2, _ := b.At(b.Bounds().Min.X+x, b.Bounds().Min.Y+y).RGBA()
			d := max(absDiff(r1, r2), absDiff(g1, g2), absDiff(b1, b2))
			if int(d>>8) > tol {
				off++
			}
		}
	}
	return float64(off) / float64(r.Dx()*r.Dy())
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

// compareLogo returns the share of pixels of art's PDF raster that are
// off from rsvg-convert's raster of reference.
func compareLogo(t *testing.T, art *Art, reference []byte) float64 {
	t.Helper()
	s := art.Size()
	w := int(math.Round(s.W * pxPerMM * fidelityScale))
	h := int(math.Round(s.H * pxPerMM * fidelityScale))
	got := rasterPDF(t, renderPDF(t, art), w, h)
	want := rasterSVG(t, reference, w, h)
	return offShare(got, want, pixelTolerance)
}

func logos(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob("testdata/logos/*.svg")
	if err != nil || len(files) < 12 {
		t.Fatalf("want at least 12 logos, have %d (%v)", len(files), err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".svg")] = b
	}
	return out
}

func TestFidelityAgainstRsvg(t *testing.T) {
	testtools.Need(t, "poppler-utils", "pdftoppm")
	testtools.Need(t, "librsvg2-bin", "rsvg-convert")
	for name, svg := range logos(t) {
		t.Run(name, func(t *testing.T) {
			art, err := Parse(svg)
			if err != nil {
				t.Fatal(err)
			}
			share := compareLogo(t, art, svg)
			t.Logf("%s: %.3f%% of pixels off (tolerance %d/255)", name, share*100, pixelTolerance)
			if share > maxOffShare {
				t.Errorf("%s: %.2f%% of pixels differ from rsvg-convert's, more than %.2f%%", name, share*100, maxOffShare*100)
			}
		})
	}
}
