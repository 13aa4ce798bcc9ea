package canvaspdf

// Inks, Platen's addition: colours a press prints as they are, never
// converted. A process CMYK colour is painted in DeviceCMYK, which PDF/X
// lets the CMYK output intent cover; a spot colour (a white underbase, a
// varnish, a cut contour, a Pantone) is a Separation space named after it,
// with an alternate for devices without that ink. canvas knows only RGBA
// paints, so an ink travels through it as a canvas.Pattern that this
// writer recognises and rasterizers draw as its look.

import (
	"fmt"
	"image/color"
	"strings"

	"github.com/tdewolff/canvas"
)

// Ink is a fill or stroke paint for process CMYK or a spot colour. Use it
// as a canvas.Paint's Pattern (context.SetFill(ink), a face's fill).
type Ink struct {
	// Spot names the spot colour; empty for process CMYK.
	Spot string
	// CMYK are the process amounts from 0 to 1: the colour of a process
	// ink, or a spot's alternate unless AltRGB is set.
	CMYK [4]float64
	// AltRGB, when set, is a spot's alternate in sRGB, components from 0
	// to 1.
	AltRGB *[3]float64
	// Tint is how much of a spot colour is printed, from 0 to 1.
	Tint float64
	// Alpha is the opacity, from 0 to 1.
	Alpha float64
	// Overprint leaves the inks this paint does not use (and, in process
	// CMYK, those at 0) as they were beneath it, instead of knocking them
	// out.
	Overprint bool
	// Look is the ink on screen, premultiplied: what a rasterizer draws.
	Look color.RGBA
}

// Transform, SetColorSpace and RenderTo make an Ink a canvas.Pattern.
func (ink *Ink) Transform(canvas.Matrix) canvas.Pattern         { return ink }
func (ink *Ink) SetColorSpace(canvas.ColorSpace) canvas.Pattern { return ink }

// RenderTo draws the ink's look over path, already in the renderer's
// coordinates. An overprinting spot colour draws nothing: it is a plate of
// its own (white, varnish, a cut line), not a colour on the artwork.
func (ink *Ink) RenderTo(r canvas.Renderer, path *canvas.Path) {
	if ink.Spot != "" && ink.Overprint {
		return
	}
	style := canvas.DefaultStyle
	style.Fill = canvas.Paint{Color: ink.Look}
	style.Stroke = canvas.Paint{}
	r.RenderPath(path, style, canvas.Identity)
}

// inkOf returns the Ink a paint carries, if any.
func inkOf(p canvas.Paint) (*Ink, bool) {
	ink, ok := p.Pattern.(*Ink)
	return ink, ok
}

// setFillInk selects ink's colour space for filling and sets its colour.
func (w *pdfPageWriter) setFillInk(ink *Ink) { w.setInk(ink, &w.fillSpace, "cs", "sc") }

// setStrokeInk is setFillInk for the stroke.
func (w *pdfPageWriter) setStrokeInk(ink *Ink) { w.setInk(ink, &w.strokeSpace, "CS", "SC") }

// setInk selects ink's colour space with the operator selectOp, unless
// *selected is already it, and sets its colour with setOp.
func (w *pdfPageWriter) setInk(ink *Ink, selected *pdfName, selectOp, setOp string) {
	space, comps := w.inkSpace(ink)
	if *selected != space {
		fmt.Fprintf(w, " /%v %s", space, selectOp)
		*selected = space
	}
	fmt.Fprintf(w, " %v %s", comps, setOp)
	w.SetAlpha(ink.Alpha)
	w.setOverprint(ink.Overprint)
}

// inkSpace returns the colour space ink is painted in, as the name to
// select it by, and its colour's components in that space.
func (w *pdfPageWriter) inkSpace(ink *Ink) (pdfName, string) {
	if ink.Spot == "" {
		c := ink.CMYK
		return "DeviceCMYK", fmt.Sprintf("%v %v %v %v", dec(c[0]), dec(c[1]), dec(c[2]), dec(c[3]))
	}
	key := separationKey(ink)
	name, ok := w.separations[key]
	if !ok {
		if w.separations == nil {
			w.separations = map[string]pdfName{}
		}
		name = pdfName(fmt.Sprintf("Sep%d", len(w.separations)))
		w.separations[key] = name
		w.colorSpaces()[name] = w.pdf.separation(ink)
	}
	return name, fmt.Sprint(dec(ink.Tint))
}

// separationKey tells apart the Separation spaces a page needs: one per
// spot name and alternate.
func separationKey(ink *Ink) string {
	if ink.AltRGB != nil {
		return fmt.Sprintf("%s\x00rgb%v", ink.Spot, *ink.AltRGB)
	}
	return fmt.Sprintf("%s\x00cmyk%v", ink.Spot, ink.CMYK)
}

// colorSpaces is the page's ColorSpace resources, made when first needed.
func (w *pdfPageWriter) colorSpaces() pdfDict {
	spaces, ok := w.resources["ColorSpace"].(pdfDict)
	if !ok {
		spaces = pdfDict{}
		w.resources["ColorSpace"] = spaces
	}
	return spaces
}

// separation is ink's Separation colour space: its spot name, and a tint
// transform from no ink (paper white) to the full alternate.
func (w *pdfWriter) separation(ink *Ink) pdfArray {
	alternate, zero, full := any(pdfName("DeviceCMYK")), pdfArray{0, 0, 0, 0}, pdfArray{}
	if ink.AltRGB != nil {
		alternate, zero = w.srgbSpace(), pdfArray{1, 1, 1}
		for _, v := range ink.AltRGB {
			full = append(full, v)
		}
	} else {
		for _, v := range ink.CMYK {
			full = append(full, v)
		}
	}
	return pdfArray{pdfName("Separation"), pdfName(escapeName(ink.Spot)), alternate, pdfDict{
		"FunctionType": 2, "Domain": pdfArray{0, 1}, "C0": zero, "C1": full, "N": 1,
	}}
}

// escapeName writes s as the characters of a PDF name: anything but
// printable ASCII, and the delimiters, as #xx (ISO 32000-1, 7.3.5), so a
// spot called "PANTONE 185 C" is /PANTONE#20185#20C, which readers decode
// back to its name.
func escapeName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("#()<>[]{}/%", c) >= 0 {
			fmt.Fprintf(&b, "#%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// setOverprint switches overprinting on or off for what is painted next,
// through an ExtGState: OP and op for strokes and fills, and OPM 1, so a
// process colour's inks at 0 leave what is beneath, as overprint means on
// press.
func (w *pdfPageWriter) setOverprint(on bool) {
	if on == w.overprint {
		return
	}
	name := pdfName("Knockout")
	if on {
		name = "Overprint"
	}
	gs, ok := w.resources["ExtGState"].(pdfDict)
	if !ok {
		gs = pdfDict{}
		w.resources["ExtGState"] = gs
	}
	if _, ok := gs[name]; !ok {
		gs[name] = pdfDict{"Type": pdfName("ExtGState"), "OP": on, "op": on, "OPM": boolInt(on)}
	}
	fmt.Fprintf(w, " /%v gs", name)
	w.overprint = on
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
