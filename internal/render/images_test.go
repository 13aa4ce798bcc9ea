package render

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/poppler"
)

// countingImages is images that counts the fetches.
type countingImages struct {
	images
	fetches atomic.Int64
}

func (c *countingImages) Image(ctx context.Context, src string) (*Image, error) {
	c.fetches.Add(1)
	return c.images.Image(ctx, src)
}

func encodedPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h)) // compresses to almost nothing
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func encodedJPEG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y += 7 {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{R: uint8(x), G: 90, B: uint8(y), A: 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// imageLayers is a document of n image layers drawing src over 40×30 mm.
func imageLayers(t *testing.T, src string, n int) *designdoc.Document {
	t.Helper()
	layers := make([]string, n)
	for i := range layers {
		layers[i] = fmt.Sprintf(`{"type":"image","src":%q,"x":%d,"y":5,"width":40,"height":30}`, src, i%5)
	}
	doc, err := designdoc.Parse([]byte(`{"width":60,"height":40,"layers":[` + strings.Join(layers, ",") + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestEachImageIsFetchedAndEmbeddedOnce: a hundred layers of one image
// fetch it once and embed it once.
func TestEachImageIsFetchedAndEmbeddedOnce(t *testing.T) {
	poppler.Need(t, "pdfimages")
	src := &countingImages{images: images{"https://img/a.png": {Data: encodedPNG(t, 400, 300), Format: "png"}}}
	r := New(src, NewFonts(nil))
	pdf, err := r.PDF(context.Background(), imageLayers(t, "https://img/a.png", 100), Settings{DPI: 300})
	if err != nil {
		t.Fatal(err)
	}
	if n := src.fetches.Load(); n != 1 {
		t.Errorf("%d fetches of one image; want 1", n)
	}
	if list := pdfImages(t, pdf); len(list) != 1 || list[0] != "400x300" {
		t.Errorf("embedded images %v; want one of 400x300", list)
	}
}

// TestAnImageOverTheRenderBudgetFailsBeforeDecoding: the 100-megapixel
// PNG of a few hundred kilobytes, drawn by many layers, fails at its first
// layer with the reason, without being decoded.
func TestAnImageOverTheRenderBudgetFailsBeforeDecoding(t *testing.T) {
	r := New(images{"https://img/huge.png": {Data: encodedPNG(t, 10_000, 10_000), Format: "png"}}, NewFonts(nil))
	for name, render := range map[string]func(*designdoc.Document) error{
		"pdf": func(d *designdoc.Document) error {
			_, err := r.PDF(context.Background(), d, Settings{DPI: 300})
			return err
		},
		"png": func(d *designdoc.Document) error {
			_, err := r.PNG(context.Background(), d, 0, Settings{DPI: 72})
			return err
		},
	} {
		var before, after runtimeMem
		before.read()
		err := render(imageLayers(t, "https://img/huge.png", 50))
		after.read()
		want := "layers[0]: decoding the 10000×10000 image needs 382 MB, over the 128 MB a render may spend on pixels"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v; want %q", name, err, want)
		}
		if grew := after.total - before.total; grew > 64<<20 {
			t.Errorf("%s: allocated %d MB before refusing", name, grew>>20)
		}
	}
}

// TestAnImageFarAboveThePrintResolutionIsScaledDown: a 4000×3000 photo in
// a 40×30 mm frame at 300 DPI (473×355 dots) is embedded at that size; a
// photo at print resolution keeps its own JPEG bytes.
func TestAnImageFarAboveThePrintResolutionIsScaledDown(t *testing.T) {
	poppler.Need(t, "pdfimages")
	big, small := encodedJPEG(t, 4000, 3000), encodedJPEG(t, 600, 450)
	r := New(images{"https://img/big.jpg": {Data: big, Format: "jpeg"}, "https://img/small.jpg": {Data: small, Format: "jpeg"}}, NewFonts(nil))
	pdf, err := r.PDF(context.Background(), imageLayers(t, "https://img/big.jpg", 2), Settings{DPI: 300})
	if err != nil {
		t.Fatal(err)
	}
	if list := pdfImages(t, pdf); len(list) != 1 || list[0] != "473x355" {
		t.Errorf("embedded %v; want one image of 473x355", list)
	}
	pdf, err = r.PDF(context.Background(), imageLayers(t, "https://img/small.jpg", 1), Settings{DPI: 300})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(pdf, small) {
		t.Error("a JPEG at print resolution was re-encoded")
	}
}

// pdfImages lists the distinct images a PDF holds, as WxH, by poppler's
// pdfimages.
func pdfImages(t *testing.T, pdf []byte) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	// A row per use; the object number says which are the same image.
	var list []string
	seen := map[string]bool{}
	for i, line := range strings.Split(poppler.Run(t, "pdfimages", "-list", path), "\n") {
		f := strings.Fields(line)
		if i < 2 || len(f) < 11 || f[2] != "image" || seen[f[10]] {
			continue
		}
		seen[f[10]] = true
		list = append(list, f[3]+"x"+f[4])
	}
	return list
}

// runtimeMem reads the bytes allocated so far.
type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.total = s.TotalAlloc
}
