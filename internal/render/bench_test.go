package render

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"math"
	"testing"

	"github.com/platen-print/platen/internal/designdoc"
)

// BenchmarkReferencePDF renders the reference page to PDF.
func BenchmarkReferencePDF(b *testing.B) {
	r, doc, jpg := reference(b)
	b.ReportAllocs()
	var size int
	for b.Loop() {
		pdf, err := r.PDF(context.Background(), doc, Settings{})
		if err != nil {
			b.Fatal(err)
		}
		size = len(pdf)
	}
	b.ReportMetric(float64(size-len(jpg)), "bytes-over-photo")
}

// BenchmarkReferencePNG renders the reference page to PNG at 300 DPI.
func BenchmarkReferencePNG(b *testing.B) {
	r, doc, _ := reference(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.PNG(context.Background(), doc, 0, Settings{DPI: 300}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStickerPDF renders a die-cut sticker: a 2000 × 2000 RGBA
// flower with a hole (antialiased) over 80 mm, its white underbase and its
// cut contour 3 mm outside it, both traced from its pixels.
func BenchmarkStickerPDF(b *testing.B) {
	r := New(images{"https://example.com/flower.png": {Data: flowerPNG(b), Format: "png"}}, NewFonts(nil))
	doc, err := designdoc.Parse([]byte(`{"width": 100, "height": 100, "layers": [{"type": "image", "src": "https://example.com/flower.png",
		"x": 10, "y": 10, "width": 80, "height": 80, "cut_offset": 3, "underbase": "spot(White, #ffffff)"}]}`))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.PDF(context.Background(), doc, Settings{}); err != nil {
			b.Fatal(err)
		}
	}
}

// flowerPNG is a 2000 × 2000 five-petalled flower with a hole, its edges
// antialiased, in a gradient.
func flowerPNG(tb testing.TB) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 2000, 2000))
	for y := range 2000 {
		for x := range 2000 {
			dx, dy := float64(x)+0.5-1000, float64(y)+0.5-1000
			r, a := math.Hypot(dx, dy), math.Atan2(dy, dx)
			cover := clamp01(600+250*math.Cos(5*a)-r+0.5) * clamp01(r-150+0.5)
			if cover > 0 {
				img.SetNRGBA(x, y, color.NRGBA{R: uint8(100 + x/20), G: 40, B: uint8(200 - y/20), A: uint8(255 * cover)})
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func clamp01(v float64) float64 { return math.Max(0, math.Min(1, v)) }
