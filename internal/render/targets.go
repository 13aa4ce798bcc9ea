package render

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"math"

	"github.com/tdewolff/canvas"
	"golang.org/x/image/draw"
	"golang.org/x/image/webp"

	"github.com/platen-print/platen/third_party/canvaspdf"
)

// pdfTarget draws onto a PDF page. Images keep their bytes: JPEG is
// embedded as is, and a photo cropped by its frame is clipped rather than
// cut, which would mean re-encoding it.
type pdfTarget struct {
	pdf  *canvaspdf.PDF
	dpmm float64 // the print's resolution, dots a millimetre; 0 when unknown
}

func (t *pdfTarget) Size() (float64, float64) { return t.pdf.Size() }
func (t *pdfTarget) plates() bool             { return true }
func (t *pdfTarget) RenderPath(p *canvas.Path, s canvas.Style, m canvas.Matrix) {
	t.pdf.RenderPath(p, s, m)
}
func (t *pdfTarget) RenderText(text *canvas.Text, m canvas.Matrix) { t.pdf.RenderText(text, m) }
func (t *pdfTarget) RenderImage(img image.Image, m canvas.Matrix)  { t.pdf.RenderImage(img, m) }

func (t *pdfTarget) image(c *canvas.Context, images *imageSet, src *sourceImage, frame, clip box, opacity float64) error {
	img, err := images.forPDF(src, frame, t.dpmm)
	if err != nil {
		return err
	}
	size := img.Bounds().Size()
	if overflows(frame, clip) {
		t.pdf.PushClipPolygon(corners(c, clip))
		defer t.pdf.PopClip()
	}
	t.pdf.SetImageOpacity(opacity)
	defer t.pdf.SetImageOpacity(1)
	drawImage(c, img, size, frame)
	return nil
}

// drawImage draws img stretched over frame.
func drawImage(c *canvas.Context, img image.Image, size image.Point, frame box) {
	dpmm := float64(size.X) / frame.w
	c.Push()
	defer c.Pop()
	c.Translate(frame.x, frame.y)
	// canvas draws at one resolution for both axes; fill may stretch one.
	if ky := frame.h * dpmm / float64(size.Y); math.Abs(ky-1) > 1e-9 {
		c.Scale(1, ky)
	}
	c.DrawImage(0, 0, img, canvas.DPMM(dpmm))
}

// overflows reports whether frame sticks out of clip.
func overflows(frame, clip box) bool {
	const eps = 1e-6
	return frame.x < clip.x-eps || frame.y < clip.y-eps ||
		frame.x+frame.w > clip.x+clip.w+eps || frame.y+frame.h > clip.y+clip.h+eps
}

// corners returns b's corners in PDF page coordinates (mm from the
// bottom-left), through the context's current transformation.
func corners(c *canvas.Context, b box) []canvas.Point {
	m := c.CoordSystemView().Mul(c.View())
	pts := []canvas.Point{{X: b.x, Y: b.y}, {X: b.x + b.w, Y: b.y}, {X: b.x + b.w, Y: b.y + b.h}, {X: b.x, Y: b.y + b.h}}
	for i, p := range pts {
		pts[i] = m.Dot(p)
	}
	return pts
}

// rasterTarget draws onto pixels. Images are decoded, and a photo cropped
// by its frame is cut to its visible part before scaling.
type rasterTarget struct {
	canvas.Renderer
	pixels *image.RGBA
	dpmm   float64
	height float64 // the page's, in mm
}

func (t *rasterTarget) plates() bool { return false }

func (t *rasterTarget) image(c *canvas.Context, images *imageSet, src *sourceImage, frame, clip box, opacity float64) error {
	img, err := images.decode(src)
	if err != nil {
		return err
	}
	if overflows(frame, clip) {
		img, frame = crop(img, frame, clip)
	}
	if opacity < 1 {
		img = fade(img, opacity)
	}
	if t.scale(c, img, frame) {
		return nil
	}
	drawImage(c, img, img.Bounds().Size(), frame)
	return nil
}

// scale draws an unrotated image straight into the pixels, where
// x/image/draw has fast paths for JPEG's YCbCr and for RGBA; canvas's own
// image drawing goes through the generic, per-pixel-interface path, which
// took 1.4 s of the reference page's 1.7 s. It reports false, drawing
// nothing, when the image is rotated.
func (t *rasterTarget) scale(c *canvas.Context, img image.Image, frame box) bool {
	m := c.CoordSystemView().Mul(c.View())
	// Turned or mirrored (the page's y axis points down, so an upright
	// image has m[1][1] < 0): canvas's own drawing handles those.
	if m[0][1] != 0 || m[1][0] != 0 || m[0][0] < 0 || m[1][1] > 0 {
		return false
	}
	a := m.Dot(canvas.Point{X: frame.x, Y: frame.y})
	b := m.Dot(canvas.Point{X: frame.x + frame.w, Y: frame.y + frame.h})
	px := func(x float64) int { return int(math.Round(x * t.dpmm)) }
	dst := image.Rect(px(a.X), px(t.height-a.Y), px(b.X), px(t.height-b.Y)).Canon()
	draw.CatmullRom.Scale(t.pixels, dst, img, img.Bounds(), draw.Over, nil)
	return true
}

// crop cuts img, drawn over frame, to the part inside clip.
func crop(img image.Image, frame, clip box) (image.Image, box) {
	b := img.Bounds()
	sx, sy := float64(b.Dx())/frame.w, float64(b.Dy())/frame.h
	x0, y0 := math.Max(frame.x, clip.x), math.Max(frame.y, clip.y)
	x1, y1 := math.Min(frame.x+frame.w, clip.x+clip.w), math.Min(frame.y+frame.h, clip.y+clip.h)
	r := image.Rect(
		b.Min.X+int(math.Round((x0-frame.x)*sx)), b.Min.Y+int(math.Round((y0-frame.y)*sy)),
		b.Min.X+int(math.Round((x1-frame.x)*sx)), b.Min.Y+int(math.Round((y1-frame.y)*sy)),
	).Intersect(b)
	if r.Empty() {
		return img, frame
	}
	sub := img.(interface {
		SubImage(image.Rectangle) image.Image
	}).SubImage(r)
	// The visible part, placed where its pixels fall.
	visible := box{
		x: frame.x + float64(r.Min.X-b.Min.X)/sx, y: frame.y + float64(r.Min.Y-b.Min.Y)/sy,
		w: float64(r.Dx()) / sx, h: float64(r.Dy()) / sy,
	}
	return rebase(sub), visible
}

// rebase copies img so that its bounds start at 0,0, which canvas's
// rasterizer assumes.
func rebase(img image.Image) image.Image {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Bounds(), img, b.Min, draw.Src)
	return out
}

// fade returns img with its alpha scaled by opacity.
func fade(img image.Image, opacity float64) image.Image {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	mask := image.NewUniform(colorAlpha(opacity))
	draw.DrawMask(out, out.Bounds(), img, b.Min, mask, image.Point{}, draw.Over)
	return out
}

func decodeConfig(src *Image) (image.Config, error) {
	var cfg image.Config
	var err error
	r := bytes.NewReader(src.Data)
	switch src.Format {
	case "jpeg":
		cfg, err = jpeg.DecodeConfig(r)
	case "png":
		cfg, err = png.DecodeConfig(r)
	case "webp":
		cfg, err = webp.DecodeConfig(r)
	default:
		return cfg, fmt.Errorf("unsupported image format %q", src.Format)
	}
	if err != nil {
		return cfg, fmt.Errorf("the %s image cannot be read: %v", src.Format, err)
	}
	if cfg.Width == 0 || cfg.Height == 0 {
		return cfg, fmt.Errorf("the image is empty")
	}
	return cfg, nil
}

func decode(src *Image) (image.Image, error) {
	var img image.Image
	var err error
	r := bytes.NewReader(src.Data)
	switch src.Format {
	case "jpeg":
		img, err = jpeg.Decode(r)
	case "png":
		img, err = png.Decode(r)
	case "webp":
		img, err = webp.Decode(r)
	default:
		return nil, fmt.Errorf("unsupported image format %q", src.Format)
	}
	if err != nil {
		return nil, fmt.Errorf("the %s image cannot be decoded: %v", src.Format, err)
	}
	return img, nil
}
