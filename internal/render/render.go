// Package render turns a design document into print files: a PDF with one
// page per surface (TrimBox, and BleedBox when there is bleed; text as
// vector with subset fonts; images at their own resolution, JPEG embedded
// as the original bytes; cmyk() and spot() colours as inks, cut lines and
// traced die-cut contours on a spot plate of their own), or a PNG of one
// surface at the target DPI with that DPI recorded. It draws with
// tdewolff/canvas; third_party/canvaspdf adds the page boxes, clipping, PDF/X
// and inks canvas's PDF writer lacks.
package render

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"

	"github.com/tdewolff/canvas"

	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/third_party/canvaspdf"
)

// Image is a fetched source image: its bytes as served and their format
// ("jpeg", "png" or "webp").
type Image struct {
	Data   []byte
	Format string
}

// ImageSource fetches the images layers name.
type ImageSource interface {
	Image(ctx context.Context, src string) (*Image, error)
}

// Settings are the print settings of one render.
type Settings struct {
	// DPI is the raster resolution of PNG output; PDFs are resolution-free.
	DPI int
	// Title is the PDF's title (PDF/X requires one); DefaultTitle when
	// empty.
	Title string
	// OutputIntent is the press condition PDFs are made for; nil is
	// canvaspdf.DefaultOutputIntent (FOGRA39).
	OutputIntent *canvaspdf.OutputIntent
	// CutSpot names the spot colour cut contours are stroked in;
	// DefaultCutSpot when empty.
	CutSpot string
	// AllowMissingGlyphs leaves characters no font has out of text, with a
	// WarnMissingGlyphs warning, instead of failing the render, whatever
	// the document's missing_glyphs says (a product's press setting).
	AllowMissingGlyphs bool
}

// DefaultCutSpot is the spot colour of cut contours when a product or
// template names none: the name cutting plotters' RIPs look for.
const DefaultCutSpot = "CutContour"

// pdfOptions are the writer options of a PDF made with s.
func (s Settings) pdfOptions() *canvaspdf.Options {
	return &canvaspdf.Options{Compress: true, SubsetFonts: true, OutputIntent: s.OutputIntent}
}

// DefaultTitle and DefaultSheetsTitle are the titles of PDFs whose caller
// names none.
const (
	DefaultTitle       = "Print file"
	DefaultSheetsTitle = "Press sheets"
)

// Renderer draws documents; it is safe for concurrent use.
type Renderer struct {
	images ImageSource
	fonts  *Fonts
	// added are the fonts of one request, by name (WithFonts), and their
	// names in the request's order.
	added      map[string]Added
	addedOrder []string
}

// New returns a renderer fetching images from images.
func New(images ImageSource, fonts *Fonts) *Renderer {
	return &Renderer{images: images, fonts: fonts}
}

// WithFonts returns a renderer that also knows the fonts added, by name,
// for the renders of one request: a built-in or --font-dir font of the
// same name wins over one of them.
func (r *Renderer) WithFonts(added []Added) *Renderer {
	if len(added) == 0 {
		return r
	}
	out := *r
	out.added = make(map[string]Added, len(added))
	out.addedOrder = nil
	for _, a := range added {
		out.added[a.Name] = a
		out.addedOrder = append(out.addedOrder, a.Name)
	}
	return &out
}

// WithImages returns a renderer taking its images from images: a
// request's own source, which may keep what its renders share.
func (r *Renderer) WithImages(images ImageSource) *Renderer {
	out := *r
	out.images = images
	return &out
}

// fontSet is one render's fonts.
func (r *Renderer) fontSet() *fontSet { return r.fonts.set(r.added, r.addedOrder) }

// LayerError says which layer could not be drawn and why; the message is
// what a shop sees as the print's failure reason.
type LayerError struct {
	Path string
	Err  error
}

func (e *LayerError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *LayerError) Unwrap() error { return e.Err }

// PDF renders the surfaces (all when none are named) as one PDF, a page
// each. settings.DPI, when set, is the print's resolution: images far
// above it are scaled down to it.
func (r *Renderer) PDF(ctx context.Context, doc *designdoc.Document, settings Settings, surfaces ...int) ([]byte, error) {
	if len(surfaces) == 0 {
		for i := range doc.Surfaces {
			surfaces = append(surfaces, i)
		}
	}
	p := newPage(doc, settings, r.fontSet(), newImageSet(r.images, MaxPixelBytes))
	defer p.fonts.release()
	var buf bytes.Buffer
	opts := settings.pdfOptions()
	buf.Grow(canvaspdf.SizeHint(opts))
	pdf := canvaspdf.New(&buf, p.width, p.height, opts)
	pdf.SetInfo(cmp.Or(settings.Title, DefaultTitle), "", "", "", "Platen")
	for n, i := range surfaces {
		if i < 0 || i >= len(doc.Surfaces) {
			return nil, fmt.Errorf("render: no surface %d", i)
		}
		if n > 0 {
			pdf.NewPage(p.width, p.height)
		}
		pdf.SetPageBoxes(p.trimBox(), p.bleedBox())
		if err := r.draw(ctx, &pdfTarget{pdf: pdf, dpmm: float64(settings.DPI) / 25.4}, p, doc.Surfaces[i]); err != nil {
			return nil, err
		}
	}
	if err := pdf.Close(); err != nil {
		return nil, fmt.Errorf("render: write PDF: %w", err)
	}
	return buf.Bytes(), nil
}

// page is a surface's geometry in millimetres: the trim box plus bleed on
// every side.
type page struct {
	doc *designdoc.Document
	// allowMissing lets characters no font has be left out of text (the
	// document's missing_glyphs "warn", or the settings' allowing it).
	allowMissing  bool
	cutSpot       string // the spot colour cut contours are stroked in
	fonts         *fontSet
	images        *imageSet
	bleed         float64
	trimW, trimH  float64
	width, height float64
}

// newPage is doc's page, drawn with settings' cut spot and missing glyphs
// rule.
func newPage(doc *designdoc.Document, settings Settings, fonts *fontSet, images *imageSet) page {
	p := page{doc: doc, fonts: fonts, images: images, cutSpot: cmp.Or(settings.CutSpot, DefaultCutSpot),
		bleed: doc.ToMM(doc.Bleed), trimW: doc.ToMM(doc.Width), trimH: doc.ToMM(doc.Height)}
	p.allowMissing = doc.MissingGlyphs == "warn" || settings.AllowMissingGlyphs
	p.width, p.height = p.trimW+2*p.bleed, p.trimH+2*p.bleed
	return p
}

func (p page) trimBox() canvas.Rect {
	return canvas.Rect{X0: p.bleed, Y0: p.bleed, X1: p.bleed + p.trimW, Y1: p.bleed + p.trimH}
}

func (p page) bleedBox() canvas.Rect {
	if p.bleed == 0 {
		return canvas.Rect{}
	}
	return canvas.Rect{X0: 0, Y0: 0, X1: p.width, Y1: p.height}
}

// box is a layer's frame on the page: mm from the page's top-left corner.
type box struct{ x, y, w, h float64 }

func (p page) layerBox(l designdoc.Layer) box {
	return box{x: p.bleed + p.doc.ToMM(l.X), y: p.bleed + p.doc.ToMM(l.Y), w: p.doc.ToMM(l.Width), h: p.doc.ToMM(l.Height)}
}

// target is what a surface is drawn onto: a PDF page or a raster.
type target interface {
	canvas.Renderer
	// image draws img, one of images, into frame (which may overflow
	// clip, the layer's box, for cover) on ctx, with opacity.
	image(ctx *canvas.Context, images *imageSet, img *sourceImage, frame, clip box, opacity float64) error
	// clip draws with paint what is inside path (in c's coordinates)
	// only, on a context and target paint must draw on.
	clip(c *canvas.Context, path *canvas.Path, paint func(*canvas.Context, target) error) error
	// plates reports whether the target keeps what only a press sees: cut
	// lines and the spot colours that overprint. A PNG shows neither, so
	// nothing is traced or stroked for it.
	plates() bool
}

func (r *Renderer) draw(ctx context.Context, t target, p page, s designdoc.Surface) error {
	c := canvas.NewContext(t)
	c.SetCoordSystem(canvas.CartesianIV)
	return r.drawOn(ctx, c, t, p, s)
}

// drawOn draws surface s of page p on c, in c's current coordinates: a
// page of its own, or a slot of a press sheet.
func (r *Renderer) drawOn(ctx context.Context, c *canvas.Context, t target, p page, s designdoc.Surface) error {
	if bg := p.doc.Background; bg != nil {
		c.SetFill(paint(*bg, 1, false))
		c.SetStrokeColor(canvas.Transparent)
		c.DrawPath(0, 0, canvas.Rectangle(p.width, p.height))
	}
	return r.layers(ctx, c, t, p, s.Layers, 1)
}

// layers draws layers in order, each at opacity times its own (a group's
// opacity is passed on to its layers).
func (r *Renderer) layers(ctx context.Context, c *canvas.Context, t target, p page, layers []designdoc.Layer, opacity float64) error {
	for _, l := range layers {
		if err := ctx.Err(); err != nil {
			return err
		}
		l.Opacity *= opacity
		if err := r.layer(ctx, c, t, p, l); err != nil {
			var le *LayerError
			if errors.As(err, &le) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return err
			}
			return &LayerError{Path: l.Path, Err: err}
		}
	}
	return nil
}

func (r *Renderer) layer(ctx context.Context, c *canvas.Context, t target, p page, l designdoc.Layer) error {
	if l.Type == designdoc.CutLayer && !t.plates() {
		return nil
	}
	b := p.layerBox(l)
	c.Push()
	defer c.Pop()
	c.ResetStyle()
	if l.Type == designdoc.GroupLayer {
		p.enterGroup(c, l)
	} else if l.Rotation != 0 {
		cx, cy := p.pivot(l, b)
		// With the y axis pointing down, canvas turns a positive angle
		// clockwise as the page is seen, which is what the document means.
		c.RotateAbout(l.Rotation, cx, cy)
	}
	if l.Clip == nil {
		return r.paintLayer(ctx, c, t, p, l, b)
	}
	return t.clip(c, p.clipPath(l, b), func(c *canvas.Context, t target) error {
		return r.paintLayer(ctx, c, t, p, l, b)
	})
}

// paintLayer draws l, in its box b, on c as already turned and clipped.
func (r *Renderer) paintLayer(ctx context.Context, c *canvas.Context, t target, p page, l designdoc.Layer, b box) error {
	switch l.Type {
	case designdoc.RectLayer, designdoc.EllipseLayer, designdoc.LineLayer, designdoc.PathLayer:
		return r.shape(c, p, l, b)
	case designdoc.TextLayer:
		return r.text(c, p, l, b)
	case designdoc.ImageLayer:
		return r.image(ctx, c, t, p, l, b)
	case designdoc.GroupLayer:
		return r.layers(ctx, c, t, p, l.Layers, l.Opacity)
	case designdoc.CutLayer:
		return r.cut(c, p, l, b)
	}
	return fmt.Errorf("unknown layer type %q", l.Type)
}

func (r *Renderer) text(c *canvas.Context, p page, l designdoc.Layer, b box) error {
	t, err := layoutText(p, l)
	if err != nil {
		return err
	}
	stroked := l.Stroke != nil && l.StrokeWidth > 0
	if stroked && l.StrokeFirst {
		t.outline(c, p, l, b.x, b.y, b.w)
	}
	t.draw(c, l, b.x, b.y, b.w)
	if stroked && !l.StrokeFirst {
		t.outline(c, p, l, b.x, b.y, b.w)
	}
	return nil
}

// image draws an image layer, then its underbase and its cut contour, if
// it has them. The underbase is painted over the image, overprinting: a
// RIP keeps both inks there, where an image painted over the underbase
// would knock the underbase out. The contours are traced first, so that a
// PDF embeds the pixels the tracing decoded rather than decode them again.
func (r *Renderer) image(ctx context.Context, c *canvas.Context, t target, p page, l designdoc.Layer, b box) error {
	img, err := p.images.get(ctx, l.Src)
	if err != nil {
		return err
	}
	if img.art != nil {
		return vectorImage(c, t, l, b, img.art)
	}
	if l.Grayscale {
		img = img.grayscale(l.GrayMode)
	}
	frame, shown, err := placeImage(l, b, img.cfg)
	if err != nil {
		return err
	}
	if shown.w <= 0 || shown.h <= 0 {
		return nil // a fabric image's crop beyond the image: nothing of it shows
	}
	flip(c, l, b)
	var underbase, cut *canvas.Path
	if l.Underbase != nil && (t.plates() || l.Underbase.Ink == nil || l.Underbase.Ink.Spot == "") {
		if underbase, err = p.images.outline(img, frame, shown, 0); err != nil {
			return fmt.Errorf("underbase: %w", err)
		}
	}
	if l.Cut && t.plates() {
		if cut, err = p.images.outline(img, frame, shown, p.doc.ToMM(l.CutOffset)); err != nil {
			return fmt.Errorf("cut_offset: %w", err)
		}
	}
	if err := t.image(c, p.images, img, frame, shown, l.Opacity); err != nil {
		return err
	}
	if underbase != nil {
		c.SetFill(paint(*l.Underbase, 1, true))
		c.SetStroke(canvas.Paint{})
		c.DrawPath(0, 0, underbase)
	}
	if cut != nil {
		strokeCut(c, p, 0, 0, cut)
	}
	return nil
}

// placeImage is where an image layer draws its whole source (frame) and
// the part of it that shows (shown, within b): the source fitted to the
// box, or, with crop, the cropped part fitted to the box and the rest of
// the source around it, cut off.
func placeImage(l designdoc.Layer, b box, cfg image.Config) (frame, shown box, err error) {
	if l.Crop == nil {
		frame = fit(l.Fit, b, cfg.Width, cfg.Height)
		return frame, b, nil
	}
	x, y, w, h := l.Crop[0], l.Crop[1], l.Crop[2], l.Crop[3]
	if l.CropClamp {
		// fabric's Image draws what the image has of the crop, at the
		// crop's scale, from the box's top-left corner.
		cw, ch := math.Min(w, float64(cfg.Width)-x), math.Min(h, float64(cfg.Height)-y)
		if cw <= 0 || ch <= 0 {
			return box{}, box{}, nil
		}
		b = box{x: b.x, y: b.y, w: b.w * cw / w, h: b.h * ch / h}
		w, h = cw, ch
	}
	if x+w > float64(cfg.Width)+1e-9 || y+h > float64(cfg.Height)+1e-9 {
		return box{}, box{}, fmt.Errorf("crop: %g×%g pixels from %g, %g reach beyond the %d×%d image", w, h, x, y, cfg.Width, cfg.Height)
	}
	part := fitSize(l.Fit, b, w, h)
	sx, sy := part.w/w, part.h/h
	frame = box{x: part.x - x*sx, y: part.y - y*sy, w: float64(cfg.Width) * sx, h: float64(cfg.Height) * sy}
	return frame, intersect(part, b), nil
}

// intersect is the part of a inside b.
func intersect(a, b box) box {
	x0, y0 := math.Max(a.x, b.x), math.Max(a.y, b.y)
	x1, y1 := math.Min(a.x+a.w, b.x+b.w), math.Min(a.y+a.h, b.y+b.h)
	return box{x: x0, y: y0, w: math.Max(0, x1-x0), h: math.Max(0, y1-y0)}
}

// flip mirrors what is drawn next across b's middle, as l's flip says.
func flip(c *canvas.Context, l designdoc.Layer, b box) {
	if l.FlipX {
		c.ReflectXAbout(b.x + b.w/2)
	}
	if l.FlipY {
		c.ReflectYAbout(b.y + b.h/2)
	}
}

// fit places a w×h-pixel image in b: fill stretches it to the box, contain
// shows all of it centred, cover fills the box centred and overflows it.
func fit(mode string, b box, w, h int) box { return fitSize(mode, b, float64(w), float64(h)) }

// fitSize is fit for any size.
func fitSize(mode string, b box, w, h float64) box {
	if mode == "fill" {
		return b
	}
	sx, sy := b.w/w, b.h/h
	s := math.Min(sx, sy)
	if mode == "cover" {
		s = math.Max(sx, sy)
	}
	dw, dh := w*s, h*s
	return box{x: b.x + (b.w-dw)/2, y: b.y + (b.h-dh)/2, w: dw, h: dh}
}

func rgba(c designdoc.Color, opacity float64) color.RGBA {
	a := float64(c.A) * opacity / 255
	// canvas wants premultiplied colour.
	return color.RGBA{R: uint8(float64(c.R)*a + 0.5), G: uint8(float64(c.G)*a + 0.5), B: uint8(float64(c.B)*a + 0.5), A: uint8(255*a + 0.5)}
}

func colorAlpha(opacity float64) color.Alpha { return color.Alpha{A: uint8(255*opacity + 0.5)} }
