package designdoc

import (
	"fmt"
	"strings"

	"github.com/tdewolff/canvas"
)

// image reads an image object: the part of src from cropX, cropY, width ×
// height of its pixels, drawn over the object's box, and the rectangle
// stroked around it when it has a stroke.
func (r *fabricReader) image(m members, o fabricObject) ([]Layer, error) {
	src, err := m.text("src", "")
	if err != nil {
		return nil, err
	}
	switch {
	case src == "":
		return nil, errorf(m.pathOf("src"), "is required: an https or data: URL of a PNG, JPEG, WebP or SVG image")
	case len(src) > maxSrcBytes:
		return nil, errorf(m.pathOf("src"), "is over %d MB", maxSrcBytes>>20)
	case !strings.HasPrefix(src, "http://") && !strings.HasPrefix(src, "https://") && !strings.HasPrefix(src, "data:"):
		return nil, errorf(m.pathOf("src"), "must be an http(s) or data: URL: a canvas saved with a blob: or relative URL cannot be fetched")
	}
	if o.width <= 0 || o.height <= 0 {
		return nil, errorf(m.pathOf("width"), "must be above 0 with height: the image's size in its pixels, as fabric saves it")
	}
	crop, err := fabricNumbers(m, "cropX", "cropY")
	if err != nil {
		return nil, err
	}
	cropX, cropY := crop[0], crop[1]
	if cropX < 0 || cropY < 0 {
		return nil, errorf(m.pathOf("cropX"), "must be 0 or more, with cropY")
	}
	if o.width > maxCropPixels || o.height > maxCropPixels {
		return nil, errorf(m.pathOf("width"), "must be at most %d pixels, with height", maxCropPixels)
	}
	l := Layer{Type: ImageLayer, Path: m.path, X: -o.width / 2, Y: -o.height / 2, Width: o.width, Height: o.height, Opacity: 1, Scale: 1}
	l.Src, l.Fit = src, "fill"
	l.Crop, l.CropClamp = &[4]float64{cropX, cropY, o.width, o.height}, true
	if l.Grayscale, l.GrayMode, err = fabricFilters(m); err != nil {
		return nil, err
	}
	layers := []Layer{l}
	p, err := r.paint(m, "image", o)
	if err != nil {
		return nil, err
	}
	if p.stroke != nil && p.strokeWidth > 0 {
		frame := &canvas.Path{}
		w, h := o.width/2, o.height/2
		frame.MoveTo(-w, -h)
		frame.LineTo(w, -h)
		frame.LineTo(w, h)
		frame.LineTo(-w, h)
		frame.Close()
		p.fill, p.gradient = nil, nil
		stroke, err := p.layers(m.path, frame)
		if err != nil {
			return nil, err
		}
		if p.strokeFirst {
			return append(stroke, layers...), nil
		}
		layers = append(layers, stroke...)
	}
	return layers, nil
}

// fabricFilters reads an image's filters: only Grayscale (its mode:
// average, fabric's default, luminosity or lightness) prints.
func fabricFilters(m members) (bool, string, error) {
	raw, ok := m.get("filters")
	if !ok {
		return false, "", nil
	}
	list, err := array(raw, m.pathOf("filters"))
	if err != nil {
		return false, "", err
	}
	gray, mode := false, ""
	for i, item := range list {
		p := fmt.Sprintf("%s[%d]", m.pathOf("filters"), i)
		fm, err := object(item, p)
		if err != nil {
			return false, "", err
		}
		t, err := fm.text("type", "")
		if err != nil {
			return false, "", err
		}
		if t != "Grayscale" {
			return false, "", errorf(fm.pathOf("type"), "is a filter Platen does not print: %q (it prints Grayscale; apply the others to the image itself)", t)
		}
		if gray {
			continue // greying grey changes nothing
		}
		if mode, err = fm.choice("mode", "average", "luminosity", "lightness"); err != nil {
			return false, "", err
		}
		gray = true
	}
	return gray, mode, nil
}
