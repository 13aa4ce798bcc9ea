package render

import (
	"context"
	"testing"
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
