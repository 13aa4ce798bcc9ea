package render

import (
	"errors"

	"github.com/tdewolff/canvas"

	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/svgart"
)

// vectorImage draws an image layer whose source is SVG as vector art
// (internal/svgart): fitted to the layer's box as fit says (fill
// stretches it; contain fits it whole; cover fills the box and is clipped
// to it), flipped and faded as a raster is. What only pixels have is
// refused: a crop in pixels, grayscale, and a die-cut contour or
// underbase traced from opaque pixels.
func vectorImage(c *canvas.Context, t target, l designdoc.Layer, b box, art *svgart.Art) error {
	switch {
	case l.Crop != nil && l.CropClamp && l.Crop[0] == 0 && l.Crop[1] == 0:
		// A fabric canvas's image: the whole SVG over its box, as fabric
		// draws an SVG at the size the canvas saved.
	case l.Crop != nil:
		return errors.New("crop applies to PNG, JPEG and WebP images, not to SVG: crop the artwork in the SVG itself")
	case l.Grayscale:
		return errors.New("grayscale applies to PNG, JPEG and WebP images, not to SVG: give the SVG grey colours")
	case l.Cut || l.Underbase != nil:
		return errors.New("cut_offset and underbase trace an image's opaque pixels and apply to PNG and WebP images, not to SVG: draw the cut line as a cut layer")
	}
	if l.Opacity < 1 {
		faded, err := art.Faded(l.Opacity)
		if err != nil {
			return err
		}
		art = faded
	}
	flip(c, l, b)
	size := art.Size()
	switch l.Fit {
	case "fill":
		art.DrawStretched(c, b.x, b.y, b.w, b.h)
		return nil
	case "contain":
		f := fitSize("contain", b, size.W, size.H)
		art.Draw(c, f.x, f.y, f.w, f.h)
		return nil
	}
	f := fitSize("cover", b, size.W, size.H)
	return t.clip(c, canvas.Rectangle(b.w, b.h).Translate(b.x, b.y), func(c *canvas.Context, _ target) error {
		art.Draw(c, f.x, f.y, f.w, f.h)
		return nil
	})
}
