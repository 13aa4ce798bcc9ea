package svgart

import (
	"bytes"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tdewolff/canvas"

	"github.com/platen-print/platen/internal/pdfxtest"
	"github.com/platen-print/platen/internal/testtools"
	"github.com/platen-print/platen/third_party/canvaspdf"
)

// renderPDF draws art on a page of its intrinsic size through Platen's
// PDF writer, as internal/render does.
func renderPDF(t testing.TB, a *Art) []byte {
	t.Helper()
	s := a.Size()
	var buf bytes.Buffer
	pdf := canvaspdf.New(&buf, s.W, s.H, nil)
	c := canvas.NewContext(pdf)
	c.SetCoordSystem(canvas.CartesianIV)
	a.Draw(c, 0, 0, s.W, s.H)
	if err := pdf.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// rasterPDF renders page 1 of pdf to exactly w×h pixels with pdftoppm.
// The PDF's output intent is removed first: poppler 22.12 soft-proofs
// shadings, and only shadings, through a PDF/X output intent (FOGRA39
// here), which dulls bright gradient colours by up to a third while flat
// colours are shown as written; Ghostscript, and poppler on the same file
// without the output intent, show the gradients as written. What is
// compared is svgart's drawing, not a press simulation.
func rasterPDF(t testing.TB, pdf []byte, w, h int) image.Image {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.pdf")
	pdf, err := pdfxtest.WithoutOutputIntent(pdf)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	cmd := exec.Command("pdftoppm", "-png", "-singlefile", "-scale-to-x", fmt.Sprint(w), "-scale-to-y", fmt.Sprint(h), in, out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v: %s", err, b)
	}
	return testtools.ReadPNG(t, out+".png")
}

// rasterSVG renders svg to w×h pixels on white with rsvg-convert.
func rasterSVG(t testing.TB, svg []byte, w, h int) image.Image {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "ref.png")
	cmd := exec.Command("rsvg-convert", "-w", fmt.Sprint(w), "-h", fmt.Sprint(h), "-b", "white", "-o", out)
	cmd.Stdin = bytes.NewReader(svg)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("rsvg-convert: %v: %s", err, b)
	}
	return testtools.ReadPNG(t, out)
}
