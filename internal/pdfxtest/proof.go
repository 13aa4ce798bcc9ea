package pdfxtest

import (
	"bytes"
	"image/color"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tdewolff/canvas"

	"github.com/platen-print/platen/internal/poppler"
	"github.com/platen-print/platen/third_party/canvaspdf"
)

// Proof is the colour pdftoppm shows for a flat sRGB fill c in a file
// canvaspdf writes. Poppler renders a PDF with one output intent through
// that intent's profile (its Gfx::initDisplayProfile), so a PDF/X file
// shows colours as the press prints them: those outside FOGRA39's gamut
// (a pure red, green or blue) come out duller than the sRGB they were
// drawn in. Tests that read pixels of a PDF compare them with Proof of the
// colour drawn, from a one-colour file through the same tools; PNGs still
// hold the sRGB colours themselves.
func Proof(t testing.TB, c color.RGBA) color.RGBA {
	t.Helper()
	proofs.Lock()
	defer proofs.Unlock()
	if p, ok := proofs.m[c]; ok {
		return p
	}
	var buf bytes.Buffer
	pdf := canvaspdf.New(&buf, 10, 10, nil)
	ctx := canvas.NewContext(pdf)
	ctx.SetFillColor(c)
	ctx.DrawPath(0, 0, canvas.Rectangle(10, 10))
	if err := pdf.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "proof.pdf")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	p := poppler.Pixel(t, path, 1, 72, 5, 5)
	proofs.m[c] = p
	return p
}

var proofs = struct {
	sync.Mutex
	m map[color.RGBA]color.RGBA
}{m: map[color.RGBA]color.RGBA{}}
