package poppler

import (
	"fmt"
	"image/color"
	"path/filepath"
	"testing"

	"github.com/platen-print/platen/internal/testtools"
)

// Pixel is the colour at (x, y) mm from the top-left corner of page (from
// 1) of the PDF file pdf, rasterised by pdftoppm at dpi.
func Pixel(t testing.TB, pdf string, page, dpi int, x, y float64) color.RGBA {
	t.Helper()
	px := func(mm float64) string { return fmt.Sprint(int(mm / 25.4 * float64(dpi))) }
	out := filepath.Join(t.TempDir(), "px")
	n := fmt.Sprint(page)
	Run(t, "pdftoppm", "-png", "-r", fmt.Sprint(dpi), "-f", n, "-l", n, "-x", px(x), "-y", px(y), "-W", "1", "-H", "1", "-singlefile", pdf, out)
	r, g, b, _ := testtools.ReadPNG(t, out+".png").At(0, 0).RGBA()
	return color.RGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 255}
}
