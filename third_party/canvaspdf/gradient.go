package canvaspdf

// Gradients in inks, Platen's addition: canvas's gradients are sRGB only,
// and a design's gradient may run between cmyk() colours, or between
// tints of one spot colour, which a press must print as those inks. An
// InkGradient travels through canvas as a canvas.Pattern, as an Ink does:
// this writer paints it as a PDF shading in DeviceCMYK or in the spot's
// Separation space, and rasterizers draw its look, an sRGB gradient.

import (
	"fmt"
	"math"
	"reflect"

	"github.com/tdewolff/canvas"
)

// InkGradient is a linear or radial gradient whose stops are process CMYK
// amounts, or tints of one spot colour.
type InkGradient struct {
	// Radial selects a radial gradient from Center out to Radius; a
	// linear one runs from Start to End. Coordinates are the path's own.
	Radial     bool
	Start, End canvas.Point
	Center     canvas.Point
	Radius     float64
	Offsets    []float64
	// Components are each stop's ink amounts from 0 to 1: four for
	// process CMYK, or the spot's tint when Spot is set.
	Components [][]float64
	// Spot, when set, is the spot colour (its name and alternate); its
	// Tint is not used.
	Spot *Ink
	// Alpha is the opacity, from 0 to 1.
	Alpha     float64
	Overprint bool
	// Look is the gradient on screen, which rasterizers draw, in the same
	// coordinates.
	Look canvas.Gradient
}

// Transform returns the gradient with its look moved by m; the PDF writer
// gets the matrix separately and writes the shading in the path's own
// coordinates.
func (g *InkGradient) Transform(m canvas.Matrix) canvas.Pattern {
	out := *g
	switch look := g.Look.(type) {
	case *canvas.LinearGradient:
		t := canvas.NewLinearGradient(m.Dot(look.Start), m.Dot(look.End))
		t.Grad = look.Grad
		out.Look = t
	case *canvas.RadialGradient:
		scale := math.Sqrt(math.Abs(m.Det()))
		t := canvas.NewRadialGradient(m.Dot(look.C0), look.R0*scale, m.Dot(look.C1), look.R1*scale)
		t.Grad = look.Grad
		out.Look = t
	}
	return &out
}

// SetColorSpace is part of canvas.Pattern: the look is drawn as given.
func (g *InkGradient) SetColorSpace(canvas.ColorSpace) canvas.Pattern { return g }

// RenderTo draws the gradient's look over path, already in the renderer's
// coordinates.
func (g *InkGradient) RenderTo(r canvas.Renderer, path *canvas.Path) {
	style := canvas.DefaultStyle
	style.Fill = canvas.Paint{Gradient: g.Look}
	style.Stroke = canvas.Paint{}
	r.RenderPath(path, style, canvas.Identity)
}

// setInkGradient selects g as the fill (selectOp "cs", setOp "scn") or
// the stroke ("CS", "SCN").
func (w *pdfPageWriter) setInkGradient(g *InkGradient, m canvas.Matrix, selected *pdfName, selectOp, setOp string) {
	fmt.Fprintf(w, " /Pattern %s /%v %s", selectOp, w.inkPattern(g, m), setOp)
	*selected = "Pattern"
	w.SetAlpha(g.Alpha)
	w.setOverprint(g.Overprint)
}

// inkPattern is the page's shading pattern resource for g drawn through
// m, made when first needed.
func (w *pdfPageWriter) inkPattern(g *InkGradient, m canvas.Matrix) pdfName {
	var space any = pdfName("DeviceCMYK")
	if g.Spot != nil {
		space = w.pdf.separation(g.Spot)
	}
	shading := pdfDict{"ColorSpace": space, "Extend": pdfArray{true, true}, "Function": inkFunction(g)}
	if g.Radial {
		c, r := g.Center, g.Radius*ptPerMm
		shading["ShadingType"] = 3
		shading["Coords"] = pdfArray{c.X * ptPerMm, c.Y * ptPerMm, 0, c.X * ptPerMm, c.Y * ptPerMm, r}
	} else {
		shading["ShadingType"] = 2
		shading["Coords"] = pdfArray{g.Start.X * ptPerMm, g.Start.Y * ptPerMm, g.End.X * ptPerMm, g.End.Y * ptPerMm}
	}
	pattern := pdfDict{
		"PatternType": 2,
		"Shading":     shading,
		"Matrix":      pdfArray{m[0][0], m[1][0], m[0][1], m[1][1], m[0][2] * ptPerMm, m[1][2] * ptPerMm},
	}
	patterns, ok := w.resources["Pattern"].(pdfDict)
	if !ok {
		patterns = pdfDict{}
		w.resources["Pattern"] = patterns
	}
	for name, p := range patterns {
		if reflect.DeepEqual(p, pattern) {
			return name
		}
	}
	name := pdfName(fmt.Sprintf("P%d", len(patterns)))
	patterns[name] = pattern
	return name
}

// inkFunction interpolates the stops' components: one exponential
// function between each pair of stops, stitched (even for one pair: a
// type 2 function is not remapped to its Domain, so stops inside 0 to 1
// need the stitching's Encode).
func inkFunction(g *InkGradient) pdfDict {
	pair := func(a, b []float64) pdfDict {
		return pdfDict{"FunctionType": 2, "Domain": pdfArray{0, 1}, "N": 1, "C0": floats(a), "C1": floats(b)}
	}
	first, last := g.Offsets[0], g.Offsets[len(g.Offsets)-1]
	if first == last {
		f := pair(g.Components[0], g.Components[len(g.Components)-1])
		f["Domain"] = pdfArray{first, math.Max(last, first+1e-6)}
		return f
	}
	fs, bounds, encode := pdfArray{}, pdfArray{}, pdfArray{}
	for i := 0; i+1 < len(g.Offsets); i++ {
		fs = append(fs, pair(g.Components[i], g.Components[i+1]))
		if i > 0 {
			bounds = append(bounds, g.Offsets[i])
		}
		encode = append(encode, 0, 1)
	}
	return pdfDict{"FunctionType": 3, "Domain": pdfArray{first, last}, "Bounds": bounds, "Encode": encode, "Functions": fs}
}

func floats(v []float64) pdfArray {
	out := make(pdfArray, len(v))
	for i, x := range v {
		out[i] = x
	}
	return out
}

// gradientAlpha is an sRGB gradient's opacity, which the PDF's shading
// cannot carry: Platen's stops are opaque colours faded by one opacity,
// so the first stop's alpha is every stop's.
func gradientAlpha(g canvas.Gradient) float64 {
	var grad canvas.Grad
	switch g := g.(type) {
	case *canvas.LinearGradient:
		grad = g.Grad
	case *canvas.RadialGradient:
		grad = g.Grad
	}
	if len(grad) == 0 {
		return 1
	}
	return float64(grad[0].Color.A) / 255
}
