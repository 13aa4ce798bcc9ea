package svgart

import (
	"bytes"
	"image"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// TestFidelityCatchesAlterations proves the comparison can fail: each
// logo is drawn from its original and compared with rsvg's raster of a
// deliberately altered copy, which must be reported.
func TestFidelityCatchesAlterations(t *testing.T) {
	testtools.Need(t, "poppler-utils", "pdftoppm")
	testtools.Need(t, "librsvg2-bin", "rsvg-convert")
	all := logos(t)
	cases := []struct{ logo, old, new string }{
		{"10-css", "#ffd100", "#00a0ff"},                                            // one colour changed
		{"13-illustrator", `<line class="st2"`, `<line class="st2" display="none"`}, // a 3 px rule dropped
		// A single changed join (round to miter) changes 0.02% of the
		// pixels, under maxOffShare: the comparison guards against wrong
		// drawing, not against every detail of one corner.
		{"05-transforms", `rotate(30)`, `rotate(40)`}, // one bar turned 10°
		{"06-clip", `clip-path="url(#ring)"`, ``},     // a clip dropped
	}
	for _, c := range cases {
		t.Run(c.logo, func(t *testing.T) {
			orig := all[c.logo]
			altered := strings.Replace(string(orig), c.old, c.new, 1)
			if altered == string(orig) {
				t.Fatalf("%q not found in %s", c.old, c.logo)
			}
			art, err := Parse(orig)
			if err != nil {
				t.Fatal(err)
			}
			share := compareLogo(t, art, []byte(altered))
			t.Logf("%s altered (%s → %s): %.3f%% of pixels off", c.logo, c.old, c.new, share*100)
			if share <= maxOffShare {
				t.Errorf("the alteration went unnoticed: %.3f%% off", share*100)
			}
		})
	}
}

// TestPDFHoldsVectorsOnly checks that every logo reaches the PDF as
// paths: no image XObject, and path operators in the page content.
func TestPDFHoldsVectorsOnly(t *testing.T) {
	testtools.Need(t, "qpdf", "qpdf")
	for name, svg := range logos(t) {
		art, err := Parse(svg)
		if err != nil {
			t.Fatal(err)
		}
		pdf := renderPDF(t, art)
		dir := t.TempDir()
		in, out := filepath.Join(dir, "in.pdf"), filepath.Join(dir, "out.pdf")
		if err := os.WriteFile(in, pdf, 0o644); err != nil {
			t.Fatal(err)
		}
		if b, err := exec.Command("qpdf", "--qdf", "--object-streams=disable", in, out).CombinedOutput(); err != nil {
			t.Fatalf("qpdf: %v: %s", err, b)
		}
		plain, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(plain, []byte("/Image")) || bytes.Contains(plain, []byte("/XObject")) {
			t.Errorf("%s: the PDF holds an image XObject", name)
		}
		if !regexp.MustCompile(`\d m\s`).Match(plain) || !regexp.MustCompile(`\d [lc]\s`).Match(plain) || !regexp.MustCompile(`\s[fS]\*?\s`).Match(plain) {
			t.Errorf("%s: no path construction and painting operators in the page", name)
		}
	}
}
