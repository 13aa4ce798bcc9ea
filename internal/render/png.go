package render

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/png"
	"math"

	"github.com/tdewolff/canvas"
	"github.com/tdewolff/canvas/renderers/rasterizer"

	"github.com/platen-print/platen/internal/designdoc"
)

// ErrTooLarge marks a page too large to raster at the asked DPI: the
// document's fault, so no retry can help.
var ErrTooLarge = errors.New("page too large")

// ErrTooSmall marks a page under a pixel at the asked DPI, which has no
// raster to draw on: the document's fault too.
var ErrTooSmall = errors.New("page too small")

// PNG renders one surface at settings.DPI, recording that DPI in the file.
// Where nothing is painted the PNG is transparent.
func (r *Renderer) PNG(ctx context.Context, doc *designdoc.Document, surface int, settings Settings) ([]byte, error) {
	if surface < 0 || surface >= len(doc.Surfaces) {
		return nil, fmt.Errorf("render: no surface %d", surface)
	}
	if settings.DPI < 1 {
		return nil, fmt.Errorf("render: a PNG needs a DPI")
	}
	images := newImageSet(r.images, MaxPixelBytes)
	p := newPage(doc, settings, r.fontSet(), images)
	defer p.fonts.release()
	res := canvas.DPI(float64(settings.DPI))
	// The page's pixels come out of the render's budget first; its images
	// share what is left.
	if px := p.width * res.DPMM() * p.height * res.DPMM(); images.charge(int64(px), rasterPixelBytes, "") != nil {
		return nil, fmt.Errorf("%w: the page is %.1f megapixels at %d DPI, over the %d-megapixel limit for PNG",
			ErrTooLarge, px/1e6, settings.DPI, MaxPixelBytes/rasterPixelBytes/1_000_000)
	}
	w, h := int(p.width*res.DPMM()+0.5), int(p.height*res.DPMM()+0.5)
	if w < 1 || h < 1 {
		return nil, fmt.Errorf("%w: the page is %.3g × %.3g mm, under a pixel at %d DPI", ErrTooSmall, p.width, p.height, settings.DPI)
	}
	// Linear: colours pass through as given, as in browsers, and no gamma
	// pass is spent on every pixel.
	pixels := image.NewRGBA(image.Rect(0, 0, w, h))
	ras := rasterizer.FromImage(pixels, res, canvas.LinearColorSpace{})
	t := &rasterTarget{Renderer: ras, pixels: pixels, dpmm: res.DPMM(), height: p.height}
	if err := r.draw(ctx, t, p, doc.Surfaces[surface]); err != nil {
		return nil, err
	}
	ras.Close()
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, pixels); err != nil {
		return nil, fmt.Errorf("render: encode PNG: %w", err)
	}
	return withDPI(buf.Bytes(), settings.DPI), nil
}

// withDPI inserts a pHYs chunk (pixels per metre) after the PNG's IHDR,
// which Go's encoder does not write: print software reads the DPI there.
func withDPI(data []byte, dpi int) []byte {
	const ihdrEnd = 8 + 4 + 4 + 13 + 4 // signature, length, type, IHDR data, CRC
	ppm := uint32(math.Round(float64(dpi) / 0.0254))
	chunk := make([]byte, 4+4+9+4)
	binary.BigEndian.PutUint32(chunk[0:], 9)
	copy(chunk[4:], "pHYs")
	binary.BigEndian.PutUint32(chunk[8:], ppm)
	binary.BigEndian.PutUint32(chunk[12:], ppm)
	chunk[16] = 1 // the unit is the metre
	binary.BigEndian.PutUint32(chunk[17:], crc32.ChecksumIEEE(chunk[4:17]))
	out := make([]byte, 0, len(data)+len(chunk))
	out = append(out, data[:ihdrEnd]...)
	out = append(out, chunk...)
	return append(out, data[ihdrEnd:]...)
}
