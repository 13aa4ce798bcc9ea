package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/iccprofile"
	"github.com/platen-print/platen/internal/pdfxtest"
	"github.com/platen-print/platen/internal/poppler"
	benchref "github.com/platen-print/platen/internal/render/reference"
	"github.com/platen-print/platen/internal/testtools"
)

// images serves test images by src: the test's own input, as a fetcher
// would hand them over.
type images map[string]*Image

func (m images) Image(_ context.Context, src string) (*Image, error) {
	img, ok := m[src]
	if !ok {
		return nil, fmt.Errorf("image %s answered 404 Not Found", src)
	}
	return img, nil
}

// photoSrc is the address the reference page's photo has in these tests.
const photoSrc = "https://example.com/photo.jpg"

// reference returns a renderer that holds the reference page's photo, the
// page (internal/render/reference, also what platen-bench renders) and the
// photo's bytes.
func reference(t testing.TB) (*Renderer, *designdoc.Document, []byte) {
	t.Helper()
	doc, err := designdoc.Parse(benchref.Document(photoSrc))
	if err != nil {
		t.Fatal(err)
	}
	r := New(images{photoSrc: {Data: benchref.Photo, Format: "jpeg"}}, NewFonts(nil))
	return r, doc, benchref.Photo
}

func TestReferencePDF(t *testing.T) {
	poppler.Need(t, "pdfinfo", "pdftoppm", "pdffonts")
	r, doc, jpg := reference(t)
	pdf, err := r.PDF(context.Background(), doc, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ref.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("PLATEN_KEEP_RENDERS") != "" {
		_ = os.WriteFile("/tmp/platen-ref.pdf", pdf, 0o600)
	}
	t.Run("the photo is embedded as its own bytes", func(t *testing.T) {
		if !bytes.Contains(pdf, jpg) {
			t.Error("the JPEG was re-encoded")
		}
		if over := len(pdf) - len(jpg); over > 200_000 {
			t.Errorf("PDF is %d bytes, %d over the photo", len(pdf), over)
		}
	})
	t.Run("one page, with its boxes", func(t *testing.T) {
		info := poppler.Run(t, "pdfinfo", "-box", path)
		want := map[string][]float64{
			"Pages:":    {1},
			"MediaBox:": {0, 0, 612.28, 858.90}, // 216 × 303 mm
			"TrimBox:":  {8.50, 8.50, 603.78, 850.39},
			"BleedBox:": {0, 0, 612.28, 858.90},
		}
		for key, nums := range want {
			got := field(t, info, key)
			if len(got) != len(nums) {
				t.Errorf("%s %v, want %v", key, got, nums)
				continue
			}
			for i := range nums {
				if d := got[i] - nums[i]; d > 0.02 || d < -0.02 {
					t.Errorf("%s %v, want %v", key, got, nums)
				}
			}
		}
	})
	t.Run("text is embedded subset fonts", func(t *testing.T) {
		fonts := poppler.Run(t, "pdffonts", path)
		lines := strings.Split(strings.TrimSpace(fonts), "\n")
		if len(lines) != 3 || !strings.Contains(lines[2], "Go-Bold") || !strings.Contains(lines[2], "yes yes") {
			t.Errorf("fonts:\n%s", fonts)
		}
	})
	t.Run("pixels", func(t *testing.T) {
		img := rasterise(t, path, 72)
		// 72 DPI: one pixel is 0.3528 mm; the trim box starts at 3 mm.
		checkPixels(t, img, 72, []pixelCheck{
			{"photo, left half, cropped band gone", 3 + 1, 3 + 70, "red"},
			{"photo, right half", 3 + 200, 3 + 70, "blue"},
			{"bleed beside the photo, outside its box", 1, 3 + 70, "white"},
			{"below the photo", 3 + 100, 3 + 152, "white"},
			{"the rectangle", 3 + 12, 3 + 195, "cream"},
			{"outside the rectangle", 3 + 5, 3 + 180, "white"},
		}, true)
		if !hasDark(img, 72, box{x: 3 + 50, y: 3 + 166, w: 110, h: 8}) || !hasDark(img, 72, box{x: 3 + 50, y: 3 + 176, w: 110, h: 8}) {
			t.Error("no text drawn on the two lines")
		}
		if hasDark(img, 72, box{x: 3 + 15, y: 3 + 205, w: 180, h: 80}) {
			t.Error("ink below the rectangle")
		}
	})
}

// hasDark reports whether any pixel of the region (mm) is near black.
func hasDark(img image.Image, dpi float64, b box) bool {
	px := func(mm float64) int { return int(mm / 25.4 * dpi) }
	for y := px(b.y); y < px(b.y+b.h); y++ {
		for x := px(b.x); x < px(b.x+b.w); x++ {
			if r, g, bl, _ := img.At(x, y).RGBA(); r>>8 < 80 && g>>8 < 80 && bl>>8 < 80 {
				return true
			}
		}
	}
	return false
}

type pixelCheck struct {
	name   string
	xMM    float64
	yMM    float64
	colour string
}

var colours = map[string]color.RGBA{
	"red": {220, 30, 30, 255}, "blue": {30, 30, 220, 255}, "white": {255, 255, 255, 255},
	"cream": {0xf2, 0xe8, 0xd5, 255}, "green": {30, 200, 30, 255},
}

// checkPixels checks the colours of img, a page at dpi. For a PDF
// (pdftoppm's pixels, inPDF) the colour wanted is the named one as the
// file's output intent prints it (pdfxtest.Proof); for a PNG, the sRGB
// colour itself.
func checkPixels(t *testing.T, img image.Image, dpi float64, checks []pixelCheck, inPDF bool) {
	t.Helper()
	for _, c := range checks {
		if c.colour == "" {
			continue
		}
		x, y := int(c.xMM/25.4*dpi), int(c.yMM/25.4*dpi)
		r, g, b, _ := img.At(x, y).RGBA()
		want := colours[c.colour]
		if inPDF {
			want = pdfxtest.Proof(t, want)
		}
		if !near(r>>8, want.R) || !near(g>>8, want.G) || !near(b>>8, want.B) {
			t.Errorf("%s at %.1f,%.1f mm: rgb(%d,%d,%d), want %s", c.name, c.xMM, c.yMM, r>>8, g>>8, b>>8, c.colour)
		}
	}
}

func near(got uint32, want uint8) bool {
	d := int(got) - int(want)
	return d > -24 && d < 24
}

func rasterise(t *testing.T, pdf string, dpi int) image.Image {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "page")
	poppler.Run(t, "pdftoppm", "-r", strconv.Itoa(dpi), "-png", "-singlefile", pdf, prefix)
	return testtools.ReadPNG(t, prefix+".png")
}

// field returns the numbers after key in pdfinfo's output.
func field(t *testing.T, info, key string) []float64 {
	for _, line := range strings.Split(info, "\n") {
		if !strings.HasPrefix(line, key) {
			continue
		}
		var nums []float64
		for _, f := range strings.Fields(strings.TrimPrefix(line, key)) {
			if n, err := strconv.ParseFloat(f, 64); err == nil {
				nums = append(nums, n)
			}
		}
		return nums
	}
	t.Errorf("pdfinfo has no %s:\n%s", key, info)
	return nil
}

func TestReferencePNG(t *testing.T) {
	r, doc, _ := reference(t)
	data, err := r.PNG(context.Background(), doc, 0, Settings{DPI: 300})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	// 216 × 303 mm at 300 DPI.
	if b := img.Bounds(); b.Dx() != 2551 || b.Dy() != 3579 {
		t.Errorf("size %v", b)
	}
	if i := bytes.Index(data, []byte("pHYs")); i < 0 || !bytes.Equal(data[i+4:i+13], []byte{0, 0, 0x2e, 0x23, 0, 0, 0x2e, 0x23, 1}) {
		t.Error("no pHYs chunk of 11811 px/m (300 DPI)")
	}
	checkPixels(t, img, 300, []pixelCheck{
		{"photo, left half, cropped band gone", 3 + 0.5, 3 + 70, "red"},
		{"photo, right half", 3 + 209.5, 3 + 70, "blue"},
		{"bleed beside the photo, outside its box", 1, 3 + 70, "white"},
		{"below the photo", 3 + 100, 3 + 150, "white"},
		{"the rectangle", 3 + 12, 3 + 195, "cream"},
	}, false)
	if !hasDark(img, 300, box{x: 3 + 50, y: 3 + 166, w: 110, h: 8}) {
		t.Error("no text drawn")
	}
	if os.Getenv("PLATEN_KEEP_RENDERS") != "" {
		_ = os.WriteFile("/tmp/platen-ref.png", data, 0o600)
	}
}

func TestLayouts(t *testing.T) {
	poppler.Need(t, "pdftoppm")
	square := func() []byte {
		img := image.NewRGBA(image.Rect(0, 0, 100, 50))
		for y := 0; y < 50; y++ {
			for x := 0; x < 100; x++ {
				img.Set(x, y, color.RGBA{30, 200, 30, 255})
			}
		}
		var buf bytes.Buffer
		_ = png.Encode(&buf, img)
		return buf.Bytes()
	}()
	r := New(images{"https://x/g.png": {Data: square, Format: "png"}}, NewFonts(nil))
	page := func(layer string) *designdoc.Document {
		doc, err := designdoc.Parse([]byte(`{"width": 100, "height": 100, "background": "#ffffff", "layers": [` + layer + `]}`))
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	cases := []struct {
		name   string
		layer  string
		checks []pixelCheck
	}{
		{"contain centres the image", `{"type": "image", "src": "https://x/g.png", "x": 0, "y": 0, "width": 100, "height": 100, "fit": "contain"}`,
			[]pixelCheck{{"above", 50, 20, "white"}, {"inside", 50, 50, "green"}, {"below", 50, 80, "white"}}},
		{"fill stretches it", `{"type": "image", "src": "https://x/g.png", "x": 0, "y": 0, "width": 100, "height": 100, "fit": "fill"}`,
			[]pixelCheck{{"top", 50, 5, "green"}, {"bottom", 50, 95, "green"}}},
		{"a rotated rectangle", `{"type": "rect", "x": 40, "y": 0, "width": 20, "height": 100, "fill": "#00f", "rotation": 90}`,
			[]pixelCheck{{"left end", 5, 50, "blue"}, {"top, now empty", 50, 10, "white"}}},
		// A positive rotation turns clockwise as the page is seen, as in CSS
		// and design tools: the bar's right end goes down, its left end up.
		{"rotation is clockwise", `{"type": "rect", "x": 10, "y": 45, "width": 80, "height": 10, "fill": "#00f", "rotation": 30}`,
			[]pixelCheck{{"right end, turned down", 84, 69, "blue"}, {"right end, not up", 84, 31, "white"},
				{"left end, turned up", 16, 31, "blue"}, {"left end, not down", 16, 69, "white"}}},
		{"opacity", `{"type": "rect", "x": 0, "y": 0, "width": 100, "height": 100, "fill": "#000000", "opacity": 0}`,
			[]pixelCheck{{"untouched", 50, 50, "white"}}},
	}
	colours["blue"] = color.RGBA{0, 0, 255, 255}
	defer func() { colours["blue"] = color.RGBA{30, 30, 220, 255} }()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := page(c.layer)
			pdf, err := r.PDF(context.Background(), doc, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "p.pdf")
			_ = os.WriteFile(path, pdf, 0o600)
			checkPixels(t, rasterise(t, path, 72), 72, c.checks, true)
			raw, err := r.PNG(context.Background(), doc, 0, Settings{DPI: 72})
			if err != nil {
				t.Fatal(err)
			}
			img, _ := png.Decode(bytes.NewReader(raw))
			checkPixels(t, img, 72, c.checks, false)
		})
	}
}

func TestLayerErrors(t *testing.T) {
	r := New(images{"https://x/bad.jpg": {Data: []byte("not a jpeg"), Format: "jpeg"}}, NewFonts(nil))
	for layer, want := range map[string]string{
		`{"type": "text", "text": "a", "size": 9, "font": "Comic"}`:                  `surfaces[0].layers[1]: unknown font "Comic" (known: Go-Bold,`,
		`{"type": "image", "src": "https://x/missing.png", "width": 1, "height": 1}`: "surfaces[0].layers[1]: image https://x/missing.png answered 404 Not Found",
		`{"type": "image", "src": "https://x/bad.jpg", "width": 1, "height": 1}`:     "surfaces[0].layers[1]: the jpeg image cannot be read",
	} {
		doc, err := designdoc.Parse([]byte(`{"width": 10, "height": 10, "surfaces": [{"layers": [{"type": "rect", "width": 1, "height": 1, "fill": "#000"}, ` + layer + `]}]}`))
		if err != nil {
			t.Fatal(err)
		}
		for name, render := range map[string]func() error{
			"pdf": func() error { _, err := r.PDF(context.Background(), doc, Settings{}); return err },
			"png": func() error { _, err := r.PNG(context.Background(), doc, 0, Settings{DPI: 72}); return err },
		} {
			err := render()
			var le *LayerError
			if !errors.As(err, &le) || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%s %s: %v, want %s…", name, layer, err, want)
			}
		}
	}
}

// TestReferencePDFIsPDFX4 checks an item file against PDF/X-4: its own
// objects (internal/pdfxtest), and what poppler, qpdf and Ghostscript
// make of it; the photo stays its JPEG bytes, now in the sRGB ICC space.
func TestReferencePDFIsPDFX4(t *testing.T) {
	r, doc, jpg := reference(t)
	pdf, err := r.PDF(context.Background(), doc, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if pages := pdfxtest.Objects(t, pdf, iccprofile.FOGRA39); pages != 1 {
		t.Errorf("%d pages", pages)
	}
	path := filepath.Join(t.TempDir(), "ref.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	images := pdfxtest.Tools(t, path, 1)
	if len(images) != 1 || images[0].Colour != "icc" || images[0].Encoding != "jpeg" || images[0].Width != "1800" {
		t.Errorf("images: %+v, want the 1800 px JPEG photo in an ICC space", images)
	}
	if !bytes.Contains(pdf, jpg) {
		t.Error("the JPEG was re-encoded")
	}
	if !bytes.Contains(pdf, []byte("/Title(Print file)")) {
		t.Error("the file is not titled " + DefaultTitle)
	}
}
