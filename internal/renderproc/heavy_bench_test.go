package renderproc

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"testing"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/render/reference"
)

// heavyPhoto is a 1200 × 1800 JPEG of about 800 KB (ramps under noise,
// which JPEG keeps): the heavy page's photo.
func heavyPhoto(b *testing.B) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1200, 1800))
	r := rand.New(rand.NewPCG(1, 2))
	for y := range 1800 {
		for x := range 1200 {
			n := uint8(r.IntN(60))
			img.Set(x, y, color.RGBA{uint8(x/5) + n, uint8(y/8) + n, uint8((x+y)/12) + n, 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 75}); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkHeavyPageRender is the render service's part of the heavy
// page (the reference page carrying an 800 KB photo as a data: URL), as a
// print asks for it: preflight, then the PDF. Decoding the data: URL was
// most of it, and twice: 16.5 ms a render, 5.5–7 ms once each request
// kept its images and the base64 was decoded where it lay (2026-11-28).
func BenchmarkHeavyPageRender(b *testing.B) {
	photo := heavyPhoto(b)
	doc := reference.Document("data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(photo))
	s := NewServer(Options{})
	req := &renderv1.RenderRequest{Document: doc, Settings: &renderv1.PrintSettings{Dpi: 300},
		Formats: []renderv1.Format{renderv1.Format_FORMAT_PDF}, Preflight: true}
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := s.Render(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}
