package render

import (
	"context"
	"fmt"
	"math"

	"github.com/tdewolff/canvas"

	"github.com/platen-print/platen/internal/designdoc"
)

// Warning is a preflight finding: something that prints, but that a
// prepress operator would send back to the customer.
type Warning struct {
	// Code is one of the Warn* constants.
	Code string
	// Path names the layer: "surfaces[0].layers[2]".
	Path    string
	Message string
}

// The kinds of warning.
const (
	// WarnLowResolution: an image's effective resolution at its placed
	// size is below the print's DPI.
	WarnLowResolution = "low_resolution"
	// WarnUpscaled: an image is enlarged more than MaxUpscale times its
	// own pixels at the print's DPI.
	WarnUpscaled = "upscaled"
	// WarnOutsideSafeArea: text, or an element that does not run into the
	// bleed, crosses the safe margin inside the trim, where the cut may
	// wander.
	WarnOutsideSafeArea = "outside_safe_area"
	// WarnHairline: a stroke thinner than MinStrokePt, which presses drop
	// or break up.
	WarnHairline = "hairline"
	// WarnMissingGlyphs: characters no font has, left out of the text
	// (only where the design or the settings allow it; otherwise the print
	// fails).
	WarnMissingGlyphs = "missing_glyphs"
)

// Preflight thresholds.
const (
	MaxUpscale          = 2
	MinStrokePt         = 0.1
	DefaultSafeMarginMM = 3
)

// Limits are a product's or template's preflight limits, which turn a
// warning into a failure; zero values set none.
type Limits struct {
	// MinEffectivePPI fails a print with an image below it at its placed
	// size.
	MinEffectivePPI int
	// SafeMarginMM fails a print with text or an element crossing this
	// margin inside the trim; it is also the margin warnings use.
	SafeMarginMM float64
}

// LimitError is a preflight limit a print failed; the message is the
// print's failure reason.
type LimitError struct{ Warning }

func (e *LimitError) Error() string { return e.Path + ": " + e.Message }

// Preflight checks the surfaces of doc (all when none are named) for a
// print made with settings (at settings.DPI; 0 leaves out the warnings
// that compare images with it), and returns what it found, in layer order.
// A finding past one of limits is returned as a *LimitError instead.
func (r *Renderer) Preflight(ctx context.Context, doc *designdoc.Document, settings Settings, limits Limits, surfaces ...int) ([]Warning, error) {
	if len(surfaces) == 0 {
		for i := range doc.Surfaces {
			surfaces = append(surfaces, i)
		}
	}
	p := newPage(doc, settings, r.fontSet(), newImageSet(r.images, MaxPixelBytes))
	defer p.fonts.release()
	check := preflight{p: p, dpi: settings.DPI, limits: limits, margin: limits.SafeMarginMM}
	if check.margin <= 0 {
		check.margin = DefaultSafeMarginMM
	}
	for _, i := range surfaces {
		if i < 0 || i >= len(doc.Surfaces) {
			return nil, fmt.Errorf("render: no surface %d", i)
		}
		if err := check.layers(ctx, doc.Surfaces[i].Layers, canvas.Identity); err != nil {
			return nil, err
		}
	}
	return check.found, nil
}

// preflight is one Preflight call's state.
type preflight struct {
	p      page
	dpi    int
	limits Limits
	margin float64
	found  []Warning
}

// layers checks layers drawn through m (a group's placement on the page;
// the identity for a surface's own layers).
func (c *preflight) layers(ctx context.Context, layers []designdoc.Layer, m canvas.Matrix) error {
	for _, l := range layers {
		if err := c.layer(ctx, l, m); err != nil {
			return err
		}
	}
	return nil
}

func (c *preflight) layer(ctx context.Context, l designdoc.Layer, m canvas.Matrix) error {
	b := c.p.layerBox(l)
	switch l.Type {
	case designdoc.ImageLayer:
		if err := c.image(ctx, l, b, m); err != nil {
			return err
		}
		return c.safeArea(l, b, false, m)
	case designdoc.TextLayer:
		extent, err := c.textBox(l, b)
		if err != nil {
			return &LayerError{Path: l.Path, Err: err}
		}
		return c.safeArea(l, extent, true, m)
	case designdoc.RectLayer, designdoc.EllipseLayer, designdoc.PathLayer, designdoc.LineLayer:
		if l.Stroke != nil && l.StrokeWidth > 0 {
			if pt := c.p.doc.ToMM(l.StrokeWidth) * scaleOf(m) * ptPerMM; pt < MinStrokePt {
				c.warn(l, WarnHairline, "its stroke is %s pt wide, thinner than %s pt: presses drop or break up such lines", short(pt), short(MinStrokePt))
			}
		}
		if l.Type == designdoc.LineLayer {
			return nil
		}
		if l.SVGPath != "" && l.ViewBox == nil {
			b = c.p.pathBox(l)
		}
		return c.safeArea(l, b, false, m)
	case designdoc.GroupLayer:
		return c.layers(ctx, l.Layers, m.Mul(c.p.groupMatrix(l)))
	}
	return nil
}

// scaleOf is how much m enlarges lengths.
func scaleOf(m canvas.Matrix) float64 { return math.Sqrt(math.Abs(m.Det())) }

// groupMatrix is what enterGroup does to a context, as a matrix.
func (p page) groupMatrix(g designdoc.Layer) canvas.Matrix {
	m := canvas.Identity.Translate(p.bleed+p.doc.ToMM(g.X), p.bleed+p.doc.ToMM(g.Y)).
		Rotate(g.Rotation).Scale(g.Scale, g.Scale)
	if g.Matrix != nil {
		m = m.Mul(p.planeMatrix(g))
	}
	return m.Translate(-p.bleed, -p.bleed)
}

const ptPerMM = 72 / 25.4

// image checks an image's effective resolution: its pixels over the size
// they print at (the lower of the two axes, for fill).
func (c *preflight) image(ctx context.Context, l designdoc.Layer, b box, m canvas.Matrix) error {
	img, err := c.p.images.get(ctx, l.Src)
	if err != nil {
		return &LayerError{Path: l.Path, Err: err}
	}
	if img.art != nil {
		return nil // vectors have no resolution
	}
	frame, _, err := placeImage(l, b, img.cfg)
	if err != nil {
		return &LayerError{Path: l.Path, Err: err}
	}
	frame.w, frame.h = frame.w*scaleOf(m), frame.h*scaleOf(m)
	if frame.w <= 0 || frame.h <= 0 {
		return nil
	}
	// Rounded as the message shows it: 1181 pixels over 100 mm are the
	// 300 ppi they were made for, not 299.97.
	ppi := math.Round(math.Min(float64(img.cfg.Width)/(frame.w/25.4), float64(img.cfg.Height)/(frame.h/25.4)))
	if min := c.limits.MinEffectivePPI; min > 0 && ppi < float64(min) {
		return &LimitError{Warning{Code: WarnLowResolution, Path: l.Path,
			Message: fmt.Sprintf("%s is %.0f ppi at its placed size, below the minimum of %d ppi set for this product", img.what(), ppi, min)}}
	}
	switch dpi := float64(c.dpi); {
	case dpi > 0 && ppi*MaxUpscale < dpi:
		c.warn(l, WarnUpscaled, "%s is enlarged %.1f× to print at %d dpi (%.0f ppi at its placed size): it will look soft or blocky", img.what(), dpi/ppi, c.dpi, ppi)
	case dpi > 0 && ppi < dpi:
		c.warn(l, WarnLowResolution, "%s is %.0f ppi at its placed size, below the print's %d dpi", img.what(), ppi, c.dpi)
	}
	return nil
}

// textBox is where a text layer's lines are drawn, unrotated: as the
// renderer sets them.
func (c *preflight) textBox(l designdoc.Layer, b box) (box, error) {
	t, err := layoutText(c.p, l)
	if err != nil {
		return box{}, err
	}
	if len(t.missing) > 0 {
		c.warn(l, WarnMissingGlyphs, "no font has the characters %q: they print as nothing", string(t.missing))
	}
	extent := t.bounds(l, b.w)
	return box{x: b.x + extent.x, y: b.y + extent.y, w: extent.w, h: extent.h}, nil
}

// safeArea checks that b, a layer's extent before its rotation, keeps the
// safe margin inside the trim. Text must keep it on every side; an image
// or shape may cross it on a side where it runs on into the bleed, as a
// background does.
func (c *preflight) safeArea(l designdoc.Layer, b box, isText bool, m canvas.Matrix) error {
	if b.w <= 0 && b.h <= 0 {
		return nil
	}
	// The renderer turns a layer about its box's centre, text about the
	// box's top-left corner.
	cx, cy := c.p.pivot(l, c.p.layerBox(l))
	b = placed(rotated(b, l.Rotation, cx, cy), m)
	p := c.p
	left, top := p.bleed, p.bleed
	right, bottom := p.bleed+p.trimW, p.bleed+p.trimH
	crosses := func(inside, margin, edge float64, outward bool) bool {
		if outward { // the right or bottom side
			return inside > margin && (isText || inside < edge)
		}
		return inside < margin && (isText || inside > edge)
	}
	if !crosses(b.x, left+c.margin, left, false) && !crosses(b.y, top+c.margin, top, false) &&
		!crosses(b.x+b.w, right-c.margin, right, true) && !crosses(b.y+b.h, bottom-c.margin, bottom, true) {
		return nil
	}
	what := "it"
	if isText {
		what = "its text"
	}
	msg := fmt.Sprintf("%s comes within %s mm of the trim edge, inside the safe margin: the cut may clip it", what, short(c.margin))
	if c.limits.SafeMarginMM > 0 {
		return &LimitError{Warning{Code: WarnOutsideSafeArea, Path: l.Path, Message: msg + " (the margin set for this product)"}}
	}
	c.found = append(c.found, Warning{Code: WarnOutsideSafeArea, Path: l.Path, Message: msg})
	return nil
}

// rotated is the bounding box of b turned by the layer's rotation about
// (cx, cy), as the renderer turns it.
func rotated(b box, rotation, cx, cy float64) box {
	if rotation == 0 {
		return b
	}
	sin, cos := math.Sincos(rotation * math.Pi / 180)
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, pt := range [4][2]float64{{b.x, b.y}, {b.x + b.w, b.y}, {b.x, b.y + b.h}, {b.x + b.w, b.y + b.h}} {
		dx, dy := pt[0]-cx, pt[1]-cy
		x, y := cx+dx*cos-dy*sin, cy+dx*sin+dy*cos
		minX, minY, maxX, maxY = math.Min(minX, x), math.Min(minY, y), math.Max(maxX, x), math.Max(maxY, y)
	}
	return box{x: minX, y: minY, w: maxX - minX, h: maxY - minY}
}

// placed is the bounding box of b drawn through m.
func placed(b box, m canvas.Matrix) box {
	if m == canvas.Identity {
		return b
	}
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, pt := range [4]canvas.Point{{X: b.x, Y: b.y}, {X: b.x + b.w, Y: b.y}, {X: b.x, Y: b.y + b.h}, {X: b.x + b.w, Y: b.y + b.h}} {
		q := m.Dot(pt)
		minX, minY, maxX, maxY = math.Min(minX, q.X), math.Min(minY, q.Y), math.Max(maxX, q.X), math.Max(maxY, q.Y)
	}
	return box{x: minX, y: minY, w: maxX - minX, h: maxY - minY}
}

func (c *preflight) warn(l designdoc.Layer, code, format string, args ...any) {
	c.found = append(c.found, Warning{Code: code, Path: l.Path, Message: fmt.Sprintf(format, args...)})
}

func short(v float64) string { return fmt.Sprintf("%.3g", v) }
