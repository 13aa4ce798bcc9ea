// Package canvaspdf is tdewolff/canvas's PDF renderer (renderers/pdf at
// v0.0.0-20260913163248-dd4999d1c76a, MIT licence in LICENSE.md) with two
// additions print files need and the upstream renderer lacks: per-page
// TrimBox and BleedBox, and clipping, so that a JPEG photo cropped to its
// frame is still embedded as the original bytes rather than re-encoded.
// pdf.go, writer.go and util.go are upstream's, changed only where marked
// "Platen" and in six struct literals given field names for go vet: every
// change is in upstream.patch, against the version UPSTREAM names, and
// upstream.sh checks it, rewrites it, or re-applies it to a newer upstream;
// the additions live in this file; in pdfx.go, which makes every file
// PDF/X-4 (ISO 15930-7): an output intent (FOGRA39 unless Options name
// another), XMP metadata, and RGB in an ICC-based sRGB space; and in
// ink.go, process CMYK and spot colours (Separations), with overprint.
package canvaspdf

import (
	"compress/zlib"
	"fmt"
	"image"
	"image/color"
	"sync"

	"github.com/tdewolff/canvas"
	cimage "github.com/tdewolff/canvas/image"
)

// pageState is the part of the page writer's cached graphics state that a
// PDF "Q" restores, so the cache must be restored with it.
type pageState struct {
	alpha          float64
	fill, stroke   canvas.Paint
	lineWidth      float64
	lineCap        int
	lineJoin       int
	miterLimit     float64
	dashes         []float64
	font           *canvas.Font
	fontSize       float64
	textCharSpace  float64
	textRenderMode int
	fillSpace      pdfName
	strokeSpace    pdfName
	overprint      bool
}

// SetPageBoxes sets the current page's TrimBox and BleedBox, in mm from the
// page's bottom-left corner. A page whose boxes are not set gets both as
// its MediaBox: PDF/X wants them on every page.
func (r *PDF) SetPageBoxes(trim, bleed canvas.Rect) {
	r.w.trimBox, r.w.bleedBox = trim, bleed
}

// save opens a PDF graphics-state group ("q") and remembers the writer's
// cached state, which the matching "Q" of PopClip brings back.
func (r *PDF) save() {
	w := r.w
	if w.inTextObject {
		w.EndTextObject()
	}
	w.saved = append(w.saved, pageState{
		alpha: w.alpha, fill: w.fill, stroke: w.stroke, lineWidth: w.lineWidth, lineCap: w.lineCap,
		lineJoin: w.lineJoin, miterLimit: w.miterLimit, dashes: w.dashes, font: w.font, fontSize: w.fontSize,
		textCharSpace: w.textCharSpace, textRenderMode: w.textRenderMode,
		fillSpace: w.fillSpace, strokeSpace: w.strokeSpace, overprint: w.overprint,
	})
	fmt.Fprintf(w, " q")
}

// PopClip ends the innermost PushClip.
func (r *PDF) PopClip() {
	w := r.w
	if len(w.saved) == 0 {
		return
	}
	if w.inTextObject {
		w.EndTextObject()
	}
	s := w.saved[len(w.saved)-1]
	w.saved = w.saved[:len(w.saved)-1]
	fmt.Fprintf(w, " Q")
	w.alpha, w.fill, w.stroke, w.lineWidth, w.lineCap = s.alpha, s.fill, s.stroke, s.lineWidth, s.lineCap
	w.lineJoin, w.miterLimit, w.dashes, w.font, w.fontSize = s.lineJoin, s.miterLimit, s.dashes, s.font, s.fontSize
	w.textCharSpace, w.textRenderMode = s.textCharSpace, s.textRenderMode
	w.fillSpace, w.strokeSpace, w.overprint = s.fillSpace, s.strokeSpace, s.overprint
}

// SetImageOpacity sets the opacity of the images drawn next, from 0 to 1
// (upstream draws every image opaque).
func (r *PDF) SetImageOpacity(opacity float64) {
	r.w.imageTransparency = 1 - opacity
}

// PushClipPolygon clips what is drawn next to the polygon (mm, page
// coordinates from the bottom-left corner) until the matching PopClip.
func (r *PDF) PushClipPolygon(points []canvas.Point) {
	r.save()
	for i, p := range points {
		op := "l"
		if i == 0 {
			op = "m"
		}
		fmt.Fprintf(r.w, " %v %v %v", dec(p.X), dec(p.Y), op)
	}
	fmt.Fprintf(r.w, " h W n")
}

// addPageBoxes writes the boxes into the page dictionary, in points; an
// unset one is the MediaBox (PDF/X requires a TrimBox on every page, and
// Platen's files promise a BleedBox too).
func (w *pdfPageWriter) addPageBoxes(page pdfDict) {
	box := func(r canvas.Rect) pdfArray {
		return pdfArray{r.X0 * ptPerMm, r.Y0 * ptPerMm, r.X1 * ptPerMm, r.Y1 * ptPerMm}
	}
	media := canvas.Rect{X1: w.width, Y1: w.height}
	trim, bleed := w.trimBox, w.bleedBox
	if trim == (canvas.Rect{}) {
		trim = media
	}
	if bleed == (canvas.Rect{}) {
		bleed = media
	}
	page["TrimBox"] = box(trim)
	page["BleedBox"] = box(bleed)
}

// jpegColorSpace is the PDF colour space of a JPEG's samples: rgb (the
// document's sRGB space) for colour, and the device spaces PDF/X lets a
// CMYK output intent cover for gray and CMYK. Adobe's CMYK JPEGs store
// inverted values, which the Decode array turns back.
func jpegColorSpace(img *cimage.Image, rgb any) (any, pdfArray) {
	switch img.Config.ColorModel {
	case color.GrayModel:
		return pdfName("DeviceGray"), nil
	case color.CMYKModel:
		return pdfName("DeviceCMYK"), pdfArray{1, 0, 1, 0, 1, 0, 1, 0}
	}
	return rgb, nil
}

// hasDecorations reports whether any span of text is underlined, struck
// through or otherwise decorated.
func hasDecorations(text *canvas.Text) bool {
	found := false
	text.WalkSpans(func(_, _ float64, span canvas.TextSpan) {
		if span.IsText() && len(span.Face.Deco) > 0 {
			found = true
		}
	})
	return found
}

// deflaters are zlib writers for stream filters, reset for each stream.
var deflaters = sync.Pool{New: func() any { return zlib.NewWriter(nil) }}

// straightPixels is an NRGBA image's samples as an image stream wants
// them: RGB, and the alpha as its soft mask (nil when every pixel is
// opaque), read from its pixels directly. Upstream reads every pixel
// through image.Image's At, an interface call and an allocation each: 4
// million of them, and half of a sticker's render, for a 2000 × 2000 PNG.
// ok is false for any other kind of image.
func straightPixels(img image.Image) (rgb, alpha []byte, ok bool) {
	if c, isCanvas := img.(*cimage.Image); isCanvas && c.Mimetype != "image/jpeg" {
		decoded, err := c.Image()
		if err != nil {
			return nil, nil, false
		}
		img = decoded
	}
	m, ok := img.(*image.NRGBA)
	if !ok {
		return nil, nil, false
	}
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	rgb, alpha = make([]byte, 3*w*h), make([]byte, w*h)
	translucent := false
	for y := range h {
		row := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
		for x := range w {
			px, i := row[4*x:4*x+4:4*x+4], y*w+x
			if a := px[3]; a != 0 {
				// As upstream: a fully transparent pixel is black.
				rgb[3*i], rgb[3*i+1], rgb[3*i+2] = px[0], px[1], px[2]
				alpha[i] = a
			}
			translucent = translucent || px[3] != 255
		}
	}
	if !translucent {
		alpha = nil
	}
	return rgb, alpha, true
}

// PushClipPath clips what is drawn next to path (mm, page coordinates
// from the bottom-left corner), by the nonzero rule, until the matching
// PopClip.
func (r *PDF) PushClipPath(path *canvas.Path) {
	r.save()
	fmt.Fprintf(r.w, " %s W n", path.ToPDF())
}
