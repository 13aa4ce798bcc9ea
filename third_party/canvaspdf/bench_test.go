package canvaspdf_test

import (
	"bytes"
	"image/color"
	"testing"

	"github.com/tdewolff/canvas"

	"github.com/platen-print/platen/third_party/canvaspdf"
)

// BenchmarkSmallFile writes a one-page file with one filled rectangle, into
// a buffer grown by SizeHint as internal/render does: what every file
// costs beyond its content, PDF/X-4's profiles and metadata included.
func BenchmarkSmallFile(b *testing.B) {
	b.ReportAllocs()
	var size int
	for b.Loop() {
		var buf bytes.Buffer
		buf.Grow(canvaspdf.SizeHint(nil))
		pdf := canvaspdf.New(&buf, 100, 100, nil)
		c := canvas.NewContext(pdf)
		c.SetFillColor(color.RGBA{R: 200, A: 255})
		c.DrawPath(10, 10, canvas.Rectangle(50, 50))
		if err := pdf.Close(); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	b.ReportMetric(float64(size), "bytes")
}
