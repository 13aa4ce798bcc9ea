package renderjobs_test

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/platen-print/platen/internal/iccprofile"
	"github.com/platen-print/platen/internal/pdfxtest"
	"github.com/platen-print/platen/internal/platentest"
)

// discPNG is a 200 × 200 red disc of radius 80 px on transparency, as a
// data: URL.
func discPNG(t *testing.T) string {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 200, 200))
	for y := range 200 {
		for x := range 200 {
			if dx, dy := float64(x)+0.5-100, float64(y)+0.5-100; dx*dx+dy*dy <= 80*80 {
				img.SetNRGBA(x, y, color.NRGBA{R: 220, G: 30, B: 30, A: 255})
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
}

// TestStickerOrderSeparates orders a die-cut sticker through the API: a
// cyan band in cmyk(), the disc with its white underbase and a cut 2 mm
// outside it, and a cut rectangle round the page's edge. The file the
// print's link downloads is PDF/X-4, and Ghostscript separates it into
// plates that carry each ink where the design puts it.
func TestStickerOrderSeparates(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		tenant := srv.Bootstrap(t, "stickers", "shop-1")
		doc := `{"width": 60, "height": 60, "layers": [
			{"type": "rect", "width": 60, "height": 8, "fill": "cmyk(100, 0, 0, 0)"},
			{"type": "image", "src": "` + discPNG(t) + `", "x": 10, "y": 10, "width": 40, "height": 40, "fit": "contain",
			 "underbase": "spot(White, #ffffff)", "cut_offset": 2},
			{"type": "cut", "x": 1, "y": 1, "width": 58, "height": 58, "radius": 4}
		]}`
		r := srv.Do(t, "POST", "/api/v1/orders", tenant.Token, platentest.OrderBody(tenant.StoreID, "2001", platentest.PrintFiles(), platentest.Design(doc)))
		if r.Status != http.StatusOK {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		st := srv.WaitPrint(t, tenant.Token, "2001-1")
		if st["status"] != "ready" {
			t.Fatalf("print status %v", st)
		}
		_, pdf := platentest.Download(t, st["url"].(string))
		path := filepath.Join(t.TempDir(), "sticker.pdf")
		if err := os.WriteFile(path, pdf, 0o600); err != nil {
			t.Fatal(err)
		}
		pdfxtest.Objects(t, pdf, iccprofile.FOGRA39)
		plates := pdfxtest.Separate(t, path, 1, 150)
		checks := []struct {
			what, ink string
			x, y      float64
			want      float64
		}{
			{"the band's cyan", "Cyan", 30, 4, 1},
			{"no magenta in the band", "Magenta", 30, 4, 0},
			{"white under the disc", "White", 30, 30, 1},
			{"no white outside it", "White", 30, 12, 0},
			{"no cut inside the disc", "CutContour", 30, 30, 0},
		}
		for _, c := range checks {
			if got := plates.Ink(c.ink, c.x, c.y); !pdfxtest.Near(got, c.want) {
				t.Errorf("%s: %s at %v, %v is %.2f, want %v", c.what, c.ink, c.x, c.y, got, c.want)
			}
		}
		for deg := 0; deg < 360; deg += 15 {
			sin, cos := math.Sincos(float64(deg) * math.Pi / 180)
			if !plates.InkNear("CutContour", 30+18*cos, 30+18*sin, 0.3) {
				t.Errorf("the sticker's cut line has a gap at %d°", deg)
			}
		}
		if !plates.InkNear("CutContour", 30, 1, 0.3) || !plates.InkNear("CutContour", 1, 30, 0.3) {
			t.Error("the cut rectangle is missing")
		}
	})
}
