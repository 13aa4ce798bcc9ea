package designdoc

import (
	"strconv"
	"strings"
)

// ImageMembers are an image layer's: its source, how it fills its box,
// what of it is shown, and what a die-cut sticker adds.
type ImageMembers struct {
	// Src is an http(s) or data: URL of a PNG, JPEG, WebP or SVG image.
	Src string
	// Fit is cover, contain or fill.
	Fit string
	// Crop, when set, is the part of the source shown, in its pixels:
	// x, y, width, height. CropClamp (a fabric canvas's image) draws what
	// the image has of it, at its scale, as fabric does, where a crop
	// beyond the image otherwise fails the print.
	Crop      *[4]float64
	CropClamp bool
	// FlipX mirrors the image left to right, FlipY top to bottom.
	FlipX, FlipY bool
	// Grayscale prints the image in shades of grey: by Rec. 601's luma,
	// or, from a fabric canvas's Grayscale filter, by GrayMode: average,
	// luminosity or lightness, as fabric computes them.
	Grayscale bool
	GrayMode  string
	// Cut: a cut contour is traced CutOffset outside the image's opaque
	// pixels.
	Cut       bool
	CutOffset float64
	// Underbase is painted under the image's opaque pixels, its inks kept
	// beneath the image (a white underbase); nil for none.
	Underbase *Color
}

var imageMembers = []string{"src", "width", "height", "fit", "crop", "flip", "grayscale", "cut_offset", "underbase"}

func (d *Document) image(l *Layer, m members) error {
	var err error
	if l.Src, err = m.text("src", ""); err != nil {
		return err
	}
	switch {
	case l.Src == "":
		return errorf(m.pathOf("src"), "is required: an http(s) or data: URL of a PNG, JPEG, WebP or SVG image")
	case len(l.Src) > maxSrcBytes:
		return errorf(m.pathOf("src"), "is over %d MB", maxSrcBytes>>20)
	case !strings.HasPrefix(l.Src, "http://") && !strings.HasPrefix(l.Src, "https://") && !strings.HasPrefix(l.Src, "data:"):
		return errorf(m.pathOf("src"), "must be an http(s) or data: URL")
	}
	if err := d.box(l, m); err != nil {
		return err
	}
	if l.Fit, err = m.choice("fit", "cover", "contain", "fill"); err != nil {
		return err
	}
	if err := d.imageView(l, m); err != nil {
		return err
	}
	return d.imageInks(l, m)
}

// imageView reads what of the image is shown, and how.
func (d *Document) imageView(l *Layer, m members) error {
	var err error
	if l.Crop, err = crop(m); err != nil {
		return err
	}
	flip, err := m.text("flip", "")
	switch flip {
	case "":
	case "x", "y", "xy":
		l.FlipX, l.FlipY = strings.Contains(flip, "x"), strings.Contains(flip, "y")
	default:
		return errorf(m.pathOf("flip"), `must be "x" (left to right), "y" (top to bottom) or "xy", got %q`, flip)
	}
	if err != nil {
		return err
	}
	l.Grayscale, err = m.boolean("grayscale")
	return err
}

// crop reads {"x", "y", "width", "height"}, in the source's pixels.
func crop(m members) (*[4]float64, error) {
	raw, ok := m.get("crop")
	if !ok {
		return nil, nil
	}
	c, err := object(raw, m.pathOf("crop"))
	if err != nil {
		return nil, err
	}
	if err := c.only("crop", []string{"x", "y", "width", "height"}); err != nil {
		return nil, err
	}
	var out [4]float64
	for i, name := range []string{"x", "y", "width", "height"} {
		lo, v := 0.0, 0.0
		if i < 2 {
			v, err = c.number(name, 0)
		} else {
			v, err = c.required(name)
		}
		if err != nil {
			return nil, err
		}
		if (i >= 2 && v <= lo) || v < lo || v > maxCropPixels {
			return nil, errorf(c.pathOf(name), "must be %s pixels of the image, got %v", cropRule(i), v)
		}
		out[i] = v
	}
	return &out, nil
}

func cropRule(i int) string {
	if i < 2 {
		return "from 0 to " + strconv.Itoa(maxCropPixels)
	}
	return "above 0 and at most " + strconv.Itoa(maxCropPixels)
}

// imageInks reads what an image adds for a die-cut sticker: its cut
// contour and its underbase.
func (d *Document) imageInks(l *Layer, m members) error {
	var err error
	if l.Cut = m.has("cut_offset"); l.Cut {
		if l.CutOffset, err = d.ranged(m, "cut_offset", 0, cutOffsetSpan); err != nil {
			return err
		}
	}
	l.Underbase, err = m.optionalColor("underbase")
	return err
}

func itoa(i int) string { return strconv.Itoa(i) }
