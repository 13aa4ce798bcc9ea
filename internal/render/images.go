package render

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"math"

	"github.com/tdewolff/canvas"
	cimage "github.com/tdewolff/canvas/image"
	"golang.org/x/image/draw"

	"github.com/platen-print/platen/internal/svgart"
)

// MaxPixelBytes bounds the memory one render spends on pixels: its
// decoded images (each distinct one once), what a PDF makes of an image it
// embeds, and a PNG output's page. It keeps every render under 250 MB
// (BENCHMARKS.md). A JPEG embedded in a PDF as it came is never decoded,
// so it costs nothing here.
const MaxPixelBytes = 128 << 20

// What pixels cost, in bytes each: decoded (RGBA), and in a PDF's image
// stream (RGB and an alpha mask); a PNG page holds its pixels and the
// rasterizer's coverage of them.
const (
	decodedPixelBytes  = 4
	embeddedPixelBytes = 4
	rasterPixelBytes   = 8
)

// downsampleAbove is how far above the print's resolution an image may be
// before it is scaled down to that resolution for the PDF: twice, so that
// an image at or a little above print resolution keeps its pixels (and a
// JPEG its bytes).
const downsampleAbove = 2

// imageSet is the images of one render: each distinct src is fetched,
// read and decoded once however many layers draw it, within the render's
// pixel budget.
type imageSet struct {
	source ImageSource
	left   int64 // pixels the render may still decode
	bySrc  map[string]*sourceImage
}

// sourceImage is one fetched image and what the render made of it.
type sourceImage struct {
	raw *Image
	// art is an SVG image, parsed: drawn as vectors, never decoded; cfg
	// and the rest are a raster's.
	art     *svgart.Art
	cfg     image.Config
	decoded image.Image
	// embedded is what the PDF embeds, by the size drawn: the same value
	// for the same image and size, so that the PDF holds it once.
	embedded map[image.Point]image.Image
	// grids are its alpha, averaged onto the grids contours are traced
	// on, and traces the contours traced on them.
	grids  map[gridKey]*image.Alpha
	traces map[traceKey]*canvas.Path
	// grays are the image in shades of grey, by mode (designdoc's
	// GrayMode: "" for Rec. 601's luma), each made when a layer asks for
	// it; a grey copy has isGray set, its mode, and no copies of its own.
	grays    map[string]*sourceImage
	isGray   bool
	grayMode string
	base     *sourceImage // a grey copy's original
}

// grayscale is img in shades of grey: the same source, decoded and
// converted, never embedded as its own bytes.
func (img *sourceImage) grayscale(mode string) *sourceImage {
	if img.grays == nil {
		img.grays = map[string]*sourceImage{}
	}
	if img.grays[mode] == nil {
		img.grays[mode] = &sourceImage{raw: img.raw, cfg: img.cfg, embedded: map[image.Point]image.Image{}, isGray: true, grayMode: mode, base: img}
	}
	return img.grays[mode]
}

func newImageSet(source ImageSource, budget int64) *imageSet {
	return &imageSet{source: source, left: budget, bySrc: map[string]*sourceImage{}}
}

// charge takes pixels × bytes each from the budget, or says why it
// cannot.
func (s *imageSet) charge(pixels, bytes int64, what string) error {
	if n := pixels * bytes; n > s.left {
		return fmt.Errorf("%s needs %d MB, over the %d MB a render may spend on pixels (%d MB left)",
			what, (n+1<<20-1)>>20, MaxPixelBytes>>20, max(s.left, 0)>>20)
	}
	s.left -= pixels * bytes
	return nil
}

// get fetches src and reads its size, once per render.
func (s *imageSet) get(ctx context.Context, src string) (*sourceImage, error) {
	if img, ok := s.bySrc[src]; ok {
		return img, nil
	}
	raw, err := s.source.Image(ctx, src)
	if err != nil {
		return nil, err
	}
	if raw.Format == "svg" {
		art, err := svgart.Parse(raw.Data)
		if err != nil {
			return nil, fmt.Errorf("the SVG image: %w", err)
		}
		img := &sourceImage{raw: raw, art: art}
		s.bySrc[src] = img
		return img, nil
	}
	cfg, err := decodeConfig(raw)
	if err != nil {
		return nil, err
	}
	img := &sourceImage{raw: raw, cfg: cfg, embedded: map[image.Point]image.Image{}}
	s.bySrc[src] = img
	return img, nil
}

// decode returns img's pixels, decoding them once, charged to the budget.
func (s *imageSet) decode(img *sourceImage) (image.Image, error) {
	if img.decoded != nil {
		return img.decoded, nil
	}
	if img.isGray {
		color, err := s.decode(img.base)
		if err != nil {
			return nil, err
		}
		if err := s.charge(img.pixels(), decodedPixelBytes, "turning "+img.what()+" grey"); err != nil {
			return nil, err
		}
		img.decoded = toGray(color, img.grayMode)
		return img.decoded, nil
	}
	if err := s.charge(img.pixels(), decodedPixelBytes, "decoding "+img.what()); err != nil {
		return nil, err
	}
	decoded, err := decode(img.raw)
	if err != nil {
		return nil, err
	}
	img.decoded = decoded
	return decoded, nil
}

// forPDF is what a PDF embeds of img drawn over frame (mm) at dpmm dots a
// millimetre (0: no print resolution known): a JPEG's own bytes unless it
// is far above the print's resolution, a PNG as canvas embeds it, a WebP
// decoded; anything far above print resolution is decoded and scaled down
// to it.
func (s *imageSet) forPDF(img *sourceImage, frame box, dpmm float64) (image.Image, error) {
	size := image.Pt(img.cfg.Width, img.cfg.Height)
	if target, ok := printSize(size, frame, dpmm); ok {
		size = target
	}
	if e, ok := img.embedded[size]; ok {
		return e, nil
	}
	e, err := s.embeddable(img, size)
	if err != nil {
		return nil, err
	}
	img.embedded[size] = e
	return e, nil
}

func (s *imageSet) embeddable(img *sourceImage, size image.Point) (image.Image, error) {
	full := size == image.Pt(img.cfg.Width, img.cfg.Height)
	if full && img.raw.Format == "jpeg" && !img.isGray {
		return cimage.NewJPEGImage(bytes.NewReader(img.raw.Data))
	}
	// Whatever else is embedded is written out as an image stream.
	if err := s.charge(int64(size.X)*int64(size.Y), embeddedPixelBytes, fmt.Sprintf("embedding %s at %d×%d", img.what(), size.X, size.Y)); err != nil {
		return nil, err
	}
	if full && img.decoded == nil && img.raw.Format == "png" && !img.isGray {
		// canvas decodes it while embedding: charge it as decoded too.
		if err := s.charge(img.pixels(), decodedPixelBytes, "decoding "+img.what()); err != nil {
			return nil, err
		}
		return cimage.NewPNGImage(bytes.NewReader(img.raw.Data))
	}
	decoded, err := s.decode(img)
	if err != nil {
		return nil, err
	}
	if full {
		return decoded, nil
	}
	return scaleTo(decoded, size), nil
}

func (img *sourceImage) pixels() int64 { return int64(img.cfg.Width) * int64(img.cfg.Height) }

func (img *sourceImage) what() string {
	return fmt.Sprintf("the %d×%d image", img.cfg.Width, img.cfg.Height)
}

// printSize is the size img (of size pixels) needs drawn over frame at
// dpmm, when that is far below its own; ok is false when it is not.
func printSize(size image.Point, frame box, dpmm float64) (image.Point, bool) {
	if dpmm <= 0 || frame.w <= 0 || frame.h <= 0 {
		return size, false
	}
	w, h := int(math.Ceil(frame.w*dpmm)), int(math.Ceil(frame.h*dpmm))
	if w < 1 || h < 1 || size.X <= downsampleAbove*w || size.Y <= downsampleAbove*h {
		return size, false
	}
	return image.Pt(w, h), true
}

// scaleTo scales img down to size, averaging the area each pixel covers so
// that fine detail averages rather than aliases (areaScale, in two rows of
// memory); a size above img's (which forPDF never asks for) is bilinear.
func scaleTo(img image.Image, size image.Point) image.Image {
	if b := img.Bounds(); size.X <= b.Dx() && size.Y <= b.Dy() {
		return areaScale(img, size)
	}
	out := image.NewRGBA(image.Rectangle{Max: size})
	draw.BiLinear.Scale(out, out.Bounds(), img, img.Bounds(), draw.Src, nil)
	return out
}

// toGray is img in shades of grey, its alpha kept, in red, green and
// blue alike: each pixel's luma by Rec. 601's weights (CSS's grayscale()
// uses Rec. 709's), or, for a fabric canvas's Grayscale filter, by its
// mode, as fabric computes it: the average of the three, their
// luminosity (0.21, 0.72, 0.07) or their lightness (the mean of the
// largest and the smallest).
func toGray(img image.Image, mode string) *image.NRGBA {
	b := img.Bounds()
	out := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Bounds(), img, b.Min, draw.Src)
	grey := grayOf(mode)
	for i := 0; i < len(out.Pix); i += 4 {
		px := out.Pix[i : i+3 : i+3]
		y := grey(int(px[0]), int(px[1]), int(px[2]))
		px[0], px[1], px[2] = y, y, y
	}
	return out
}

// grayOf is a pixel's grey by mode (fabric's Grayscale filter rounds
// none of them: its shader truncates as it stores).
func grayOf(mode string) func(r, g, b int) uint8 {
	switch mode {
	case "average":
		return func(r, g, b int) uint8 { return uint8((r + g + b) / 3) }
	case "luminosity":
		return func(r, g, b int) uint8 { return uint8((21*r + 72*g + 7*b) / 100) }
	case "lightness":
		return func(r, g, b int) uint8 { return uint8((max(r, g, b) + min(r, g, b)) / 2) }
	}
	return func(r, g, b int) uint8 { return uint8((299*r + 587*g + 114*b + 500) / 1000) }
}
