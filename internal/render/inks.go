package render

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"

	"github.com/tdewolff/canvas"

	"github.com/platen-print/platen/internal/contour"
	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/third_party/canvaspdf"
)

// cutWidth is a cut contour's line width: 0.25 pt, the hairline cutting
// plotters' RIPs expect (they cut its centre, never print it).
const cutWidth = 0.25 * 25.4 / 72

// cutLook is the cut spot's alternate: 100 % magenta, what prepress
// software shows a cut line in.
var cutLook = [4]float64{0, 1, 0, 0}

// paint is what c, at opacity, paints with: an sRGB colour, or an ink
// (process CMYK or a spot colour) that the PDF writes as such and the
// raster draws as its look. overprint applies to inks only: an sRGB
// colour always knocks out what is beneath it.
func paint(c designdoc.Color, opacity float64, overprint bool) canvas.Paint {
	look := rgba(c, opacity)
	if c.Ink == nil {
		return canvas.Paint{Color: look}
	}
	ink := &canvaspdf.Ink{Spot: c.Ink.Spot, CMYK: c.Ink.CMYK, Tint: c.Ink.Tint,
		Alpha: float64(c.A) / 255 * opacity, Overprint: overprint, Look: look}
	if c.Ink.RGBFallback {
		ink.AltRGB = &[3]float64{float64(c.R) / 255, float64(c.G) / 255, float64(c.B) / 255}
		if c.Ink.Tint > 0 {
			// R, G, B are the tinted look; the alternate is the full ink.
			untint := func(v uint8) float64 { return 1 - (1-float64(v)/255)/c.Ink.Tint }
			ink.AltRGB = &[3]float64{untint(c.R), untint(c.G), untint(c.B)}
		}
	}
	return canvas.Paint{Pattern: ink}
}

// blackLinePaint is paint for text and lines: an sRGB #000000 prints in
// black ink alone (DeviceCMYK 0 0 0 1), as prepress expects of type and
// hairlines. Through the output profile it would separate to about
// C88 M75 Y53 K98, four plates that must register for every thin stroke
// of a letter. A design that wants rich black asks for it as an ink
// (cmyk(…)); areas (a rect's fill) keep sRGB black, which separates rich.
func blackLinePaint(c designdoc.Color, opacity float64, overprint bool) canvas.Paint {
	if c.Ink != nil || c.R != 0 || c.G != 0 || c.B != 0 {
		return paint(c, opacity, overprint)
	}
	return canvas.Paint{Pattern: &canvaspdf.Ink{CMYK: [4]float64{0, 0, 0, 1}, Alpha: float64(c.A) / 255 * opacity,
		Overprint: overprint, Look: rgba(c, opacity)}}
}

// hairlineUpTo is the widest stroke, in mm, that blackLinePaint takes as
// a line (1 pt); a wider one is an area.
const hairlineUpTo = 25.4 / 72

// registrationPaint is the registration colour, PDF's Separation "All":
// it prints on every plate, spot and cut plates included, so that each
// has the sheet's crop marks to register and trim against.
func registrationPaint() canvas.Paint {
	return canvas.Paint{Pattern: &canvaspdf.Ink{Spot: "All", CMYK: [4]float64{1, 1, 1, 1}, Tint: 1, Alpha: 1,
		Look: color.RGBA{A: 255}}}
}

// cutPaint strokes cut contours: the spot named spot, overprinting, at
// full tint.
func cutPaint(spot string) canvas.Paint {
	return canvas.Paint{Pattern: &canvaspdf.Ink{Spot: spot, CMYK: cutLook, Tint: 1, Alpha: 1, Overprint: true,
		Look: color.RGBA{R: 255, B: 255, A: 255}}}
}

// strokeCut strokes path, in the layer's coordinates from (x, y), as a cut
// contour.
func strokeCut(c *canvas.Context, p page, x, y float64, path *canvas.Path) {
	c.Push()
	defer c.Pop()
	c.ResetStyle()
	c.SetFill(canvas.Paint{})
	c.SetStroke(cutPaint(p.cutSpot))
	c.SetStrokeWidth(cutWidth)
	c.DrawPath(x, y, path)
}

// cut draws a cut layer: a rectangle (corners rounded by radius), an
// ellipse in the layer's box, or an SVG path from x, y in the document's
// unit.
func (r *Renderer) cut(c *canvas.Context, p page, l designdoc.Layer, b box) error {
	switch l.Shape {
	case designdoc.CutEllipse:
		strokeCut(c, p, b.x+b.w/2, b.y+b.h/2, canvas.Ellipse(b.w/2, b.h/2))
	case designdoc.CutPath:
		path, err := canvas.ParseSVGPath(l.SVGPath)
		if err != nil {
			return fmt.Errorf("path: %v", err)
		}
		mm := p.doc.ToMM(1)
		strokeCut(c, p, b.x, b.y, path.Transform(canvas.Identity.Scale(mm, mm)))
	default:
		radius := math.Min(p.doc.ToMM(l.Radius), math.Min(b.w, b.h)/2)
		strokeCut(c, p, b.x, b.y, canvas.RoundedRectangle(b.w, b.h, radius))
	}
	return nil
}

// pathBox is a cut path's bounding box on the page, which its rotation
// turns about.
func (p page) pathBox(l designdoc.Layer) box {
	b := p.layerBox(l)
	x0, y0, x1, y1 := p.doc.ToMM(l.PathBox[0]), p.doc.ToMM(l.PathBox[1]), p.doc.ToMM(l.PathBox[2]), p.doc.ToMM(l.PathBox[3])
	return box{x: b.x + x0, y: b.y + y0, w: x1 - x0, h: y1 - y0}
}

// Tracing resolution of an image's contour: at most traceDPMM pixels a
// millimetre (a 0.1 mm grid, finer than a plotter's blade follows) and
// maxTracePixels in all.
const (
	traceDPMM      = 10
	maxTracePixels = 4_000_000
	// traceBytes is what a traced pixel costs: its alpha grid, the
	// averaging's sums and counts, and the tracer's distance field.
	traceBytes = 13
)

// outline is the contour of img's opaque pixels, as drawn over frame and
// cut to clip, offset mm outside them, as a path in page millimetres.
func (s *imageSet) outline(img *sourceImage, frame, clip box, offset float64) (*canvas.Path, error) {
	if img.hasAlpha() {
		return s.traced(img, frame, clip, offset)
	}
	if overflows(frame, clip) {
		x0, y0 := math.Max(frame.x, clip.x), math.Max(frame.y, clip.y)
		x1, y1 := math.Min(frame.x+frame.w, clip.x+clip.w), math.Min(frame.y+frame.h, clip.y+clip.h)
		frame = box{x: x0, y: y0, w: x1 - x0, h: y1 - y0}
	}
	return grown(frame, offset), nil
}

// grown is an opaque rectangle's contour: the rectangle grown by offset,
// its corners rounded to offset.
func grown(b box, offset float64) *canvas.Path {
	return canvas.RoundedRectangle(b.w+2*offset, b.h+2*offset, offset).Translate(b.x-offset, b.y-offset)
}

// hasAlpha reports whether img's pixels can be see-through: PNG and WebP,
// not JPEG.
func (img *sourceImage) hasAlpha() bool { return img.raw.Format != "jpeg" }

// traced traces img, drawn over frame and cut to clip, at the tracing
// resolution.
func (s *imageSet) traced(img *sourceImage, frame, clip box, offset float64) (*canvas.Path, error) {
	decoded, err := s.decode(img)
	if err != nil {
		return nil, err
	}
	visible, vframe := decoded, frame
	if overflows(frame, clip) {
		visible, vframe = crop(decoded, frame, clip)
	}
	size := traceSize(visible.Bounds().Size(), vframe, offset)
	pxPerMM := float64(size.X) / vframe.w
	if offset*pxPerMM > contour.MaxOffset {
		// An image a few pixels wide with a wide offset: its contour is
		// its frame's, grown.
		return grown(vframe, offset), nil
	}
	grid, err := s.alphaGrid(img, visible, size)
	if err != nil {
		return nil, err
	}
	traced, err := img.trace(gridKey{part: visible.Bounds(), size: size}, grid, offset*pxPerMM)
	if err != nil {
		return nil, err
	}
	sx, sy := vframe.w/float64(size.X), vframe.h/float64(size.Y)
	return traced.Transform(canvas.Identity.Translate(vframe.x, vframe.y).Scale(sx, sy)), nil
}

// traceKey names a contour traced on an image's alpha grid, offset
// pixels out.
type traceKey struct {
	grid   gridKey
	offset float64
}

// trace traces grid, img's alpha on the grid key names, offset pixels
// out, once per render however many layers place the image alike; the
// path is in grid pixels, a copy the caller may transform.
func (img *sourceImage) trace(key gridKey, grid *image.Alpha, offset float64) (*canvas.Path, error) {
	k := traceKey{grid: key, offset: offset}
	if p, ok := img.traces[k]; ok {
		return p.Copy(), nil
	}
	traced, err := contour.Trace(grid, contour.Options{Offset: offset})
	if errors.Is(err, contour.ErrNoOpaquePixels) {
		return nil, fmt.Errorf("%s has no opaque pixels to cut around", img.what())
	}
	if err != nil {
		return nil, err
	}
	p := traced.CanvasPath(1, false)
	if img.traces == nil {
		img.traces = map[traceKey]*canvas.Path{}
	}
	img.traces[k] = p
	return p.Copy(), nil
}

// gridKey names an alpha grid of an image: the part of it traced and the
// grid's size.
type gridKey struct {
	part image.Rectangle
	size image.Point
}

// alphaGrid is the alpha of visible, part of img, averaged onto a grid of
// size pixels: what its contours are traced on, made once per render for
// the underbase and the cut line alike, and charged to the budget.
func (s *imageSet) alphaGrid(img *sourceImage, visible image.Image, size image.Point) (*image.Alpha, error) {
	key := gridKey{part: visible.Bounds(), size: size}
	if g, ok := img.grids[key]; ok {
		return g, nil
	}
	if err := s.charge(int64(size.X)*int64(size.Y), traceBytes, "tracing the contour of "+img.what()); err != nil {
		return nil, err
	}
	g := averageAlpha(visible, size)
	if img.grids == nil {
		img.grids = map[gridKey]*image.Alpha{}
	}
	img.grids[key] = g
	return g, nil
}

// averageAlpha averages src's alpha onto a grid of size pixels, each
// source pixel counted in the grid pixel its top-left corner falls in: a
// box filter, which keeps antialiased edges for the tracer's sub-pixel
// edge, in one pass over the source (x/image/draw's kernels took 80 % of
// a sticker's tracing).
func averageAlpha(src image.Image, size image.Point) *image.Alpha {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	sum := make([]uint32, size.X*size.Y)
	count := make([]uint32, size.X*size.Y)
	col := make([]int, w)
	for x := range w {
		col[x] = x * size.X / w
	}
	for y := range h {
		sums, counts := sum[(y*size.Y/h)*size.X:], count[(y*size.Y/h)*size.X:]
		if a, stride, ok := alphaRow(src, b.Min.Y+y); ok {
			for x := range w {
				sums[col[x]] += uint32(a[x*stride])
				counts[col[x]]++
			}
			continue
		}
		for x := range w {
			_, _, _, a := src.At(b.Min.X+x, b.Min.Y+y).RGBA()
			sums[col[x]] += a >> 8
			counts[col[x]]++
		}
	}
	out := image.NewAlpha(image.Rectangle{Max: size})
	for i := range sum {
		if count[i] > 0 {
			out.Pix[i] = uint8((sum[i] + count[i]/2) / count[i])
		}
	}
	return out
}

// alphaRow is row y of src's alpha, every stride bytes, for the image
// types decoders return with an alpha channel; ok is false for others.
func alphaRow(src image.Image, y int) (row []byte, stride int, ok bool) {
	b := src.Bounds()
	switch m := src.(type) {
	case *image.NRGBA:
		return m.Pix[m.PixOffset(b.Min.X, y)+3:], 4, true
	case *image.RGBA:
		return m.Pix[m.PixOffset(b.Min.X, y)+3:], 4, true
	case *image.Alpha:
		return m.Pix[m.PixOffset(b.Min.X, y):], 1, true
	}
	return nil, 0, false
}

// traceSize is the grid an image of size pixels drawn over frame is traced
// on, offset mm grown: its own pixels, or fewer, down to the tracing
// resolution and size, and to a grid the offset spans at most
// contour.MaxOffset pixels of.
func traceSize(size image.Point, frame box, offset float64) image.Point {
	scale := math.Min(1, traceDPMM*frame.w/float64(size.X))
	scale = math.Min(scale, traceDPMM*frame.h/float64(size.Y))
	if px := float64(size.X) * float64(size.Y) * scale * scale; px > maxTracePixels {
		scale *= math.Sqrt(maxTracePixels / px)
	}
	if span := offset * float64(size.X) * scale / frame.w; span > contour.MaxOffset {
		scale *= contour.MaxOffset / span
	}
	return image.Pt(max(1, int(math.Round(float64(size.X)*scale))), max(1, int(math.Round(float64(size.Y)*scale))))
}
