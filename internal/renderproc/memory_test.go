package renderproc

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"
	"time"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
)

// BenchmarkLargestAcceptedRenders renders, each in a fresh render process,
// the documents that come nearest the render budget and reports the
// process's peak memory (peak-MB): a PDF embedding a 16-megapixel PNG at
// print resolution, a PDF of a 24-megapixel JPEG scaled down to print
// resolution, and a PNG of an A3 page at 280 DPI with a photo.
// BENCHMARKS.md holds the figures; the target is under 250 MB.
func BenchmarkLargestAcceptedRenders(b *testing.B) {
	pngImage := dataURI(b, "png", 4000, 4000)
	jpegImage := dataURI(b, "jpeg", 6000, 4000)
	smallJPEG := dataURI(b, "jpeg", 1200, 800)
	for _, tc := range []struct {
		name   string
		doc    string
		format renderv1.Format
	}{
		{"pdf-png-16mp", fmt.Sprintf(`{"width":340,"height":340,"layers":[{"type":"image","src":%q,"x":0,"y":0,"width":340,"height":340}]}`, pngImage), renderv1.Format_FORMAT_PDF},
		{"pdf-jpeg-24mp-scaled", fmt.Sprintf(`{"width":100,"height":66,"layers":[{"type":"image","src":%q,"x":0,"y":0,"width":100,"height":66}]}`, jpegImage), renderv1.Format_FORMAT_PDF},
		{"png-a3-280dpi", fmt.Sprintf(`{"width":297,"height":420,"layers":[{"type":"image","src":%q,"x":0,"y":0,"width":297,"height":198},{"type":"text","text":"A3","size":200,"x":10,"y":250,"width":280}]}`, smallJPEG), renderv1.Format_FORMAT_PNG},
	} {
		b.Run(tc.name, func(b *testing.B) {
			dpi := uint32(300)
			if tc.format == renderv1.Format_FORMAT_PNG {
				dpi = 280
			}
			req := &renderv1.RenderRequest{Document: []byte(tc.doc), Settings: &renderv1.PrintSettings{Dpi: dpi}, Formats: []renderv1.Format{tc.format}}
			var peak int64
			for b.Loop() {
				s, err := Start(Config{Processes: 1, Limits: Limits{Time: time.Minute, CPU: time.Minute, MemoryBytes: 384 << 20}})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Render(context.Background(), req); err != nil {
					b.Fatal(err)
				}
				peak = max(peak, s.PeakResidentBytes())
				s.Close()
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
		})
	}
}

// dataURI is a w×h image of a colour ramp as a data: URI.
func dataURI(b testing.TB, format string, w, h int) string {
	b.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetNRGBA(x, y, color.NRGBA{R: uint8(x), G: uint8(y), B: uint8(x ^ y), A: 255})
		}
	}
	var buf bytes.Buffer
	var err error
	if format == "png" {
		err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img)
	} else {
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85})
	}
	if err != nil {
		b.Fatal(err)
	}
	return "data:image/" + format + ";base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
}
