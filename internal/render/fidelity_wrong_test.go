package render

import (
	"fmt"
	"image"
	"image/draw"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wrongSVG is a fixture's SVG made wrong on purpose, in a way a defect of
// Platen's could make its PDF wrong: the suite must report it.
type wrongSVG struct {
	page string // the label of the page whose SVG it changes
	what string
	// change returns the wrong SVG, or an error when the SVG no longer
	// holds what it changes (the fixture was edited).
	change func(svg string) (string, error)
}

// replace changes the first old in the SVG to new.
func replace(old, new string) func(string) (string, error) {
	return func(svg string) (string, error) {
		if !strings.Contains(svg, old) {
			return "", fmt.Errorf("the SVG holds no %q", old)
		}
		return strings.Replace(svg, old, new, 1), nil
	}
}

// replaceAll makes each change of pairs, old then new, in svg.
func replaceAll(svg string, pairs ...string) (string, error) {
	for i := 0; i < len(pairs); i += 2 {
		var err error
		if svg, err = replace(pairs[i], pairs[i+1])(svg); err != nil {
			return "", err
		}
	}
	return svg, nil
}

// wrongSVGs are the mistakes a renderer makes, each drawn where a fixture
// can show it.
func wrongSVGs() []wrongSVG {
	return []wrongSVG{
		{"rect-fill", "a fill 32 levels less blue", replace(`fill="#3030c0"`, `fill="#3030a0"`)},
		{"rect-fill", "a rectangle 2 mm to the right", replace(`<rect x="5"`, `<rect x="7"`)},
		{"rect-stroke", "a stroke inside the edge, not centred on it", replace(`<rect x="5" y="5" width="30" height="30"`, `<rect x="5.5" y="5.5" width="29" height="29"`)},
		{"rect-radius", "corners of radius 3, not 4", replace(`rx="4"`, `rx="3"`)},
		{"rotation-positive", "turned anticlockwise", replace(`rotate(30 35 30)`, `rotate(-30 35 30)`)},
		{"rotation-positive", "turned about the top-left corner, not the centre", replace(`rotate(30 35 30)`, `rotate(30 5 25)`)},
		{"opacity", "opacity 0.7, not 0.5", replace(`fill-opacity="0.5"`, `fill-opacity="0.7"`)},
		{"bleed-band", "the band stopping at the trim, not the bleed", replace(`<rect x="-3" y="-3" width="86"`, `<rect x="0" y="0" width="80"`)},
		{"colour-cmyk", "cmyk(100, 50, 0, 0) converted naively, as Platen's PNG shows it", replace(`fill="#176fc0"`, `fill="#0080ff"`)},
		{"colour-alpha", "alpha 0x80 read as opaque", replace(`fill="#0000c0" fill-opacity="0.501961"`, `fill="#0000c0"`)},
		{"text-regular", "Go-Regular drawn in Go Medium", replace(`font-family="Go" font-size="5.99722"`, `font-family="Go Medium" font-size="5.99722"`)},
		{"text-regular", "the baseline at the layer's y, not 0.945 × size below it", replace(`y="10.66632"`, `y="5"`)},
		{"text-regular", "a size of 16 pt, not 17", replace(`font-size="5.99722"`, `font-size="5.64444"`)},
		{"text-fonts", "Go-Mono drawn in Go", replace(`font-family="Go Mono">Go-Mono:`, `font-family="Go">Go-Mono:`)},
		{"text-fonts", "Go-Bold drawn in Go-Regular", replace(`font-family="Go" font-weight="bold">Go-Bold:`, `font-family="Go">Go-Bold:`)},
		{"text-align", "centred text starting at x", replace(`text-anchor="middle">centred`, `>centred`)},
		{"text-lines", "the empty line dropped", replace(`y="24.82657">Three`, `y="17.07976">Three`)},
		{"text-lines", "lines 1.2 × size apart, not 1.156 ×", replace(`y="24.82657">Three`, `y="25.41962">Three`)},
		{"text-wrap", "a word wrapped a line early", func(svg string) (string, error) {
			return replaceAll(svg, `>jumps over the lazy dog,<`, `>jumps over the lazy<`, `>then sleeps.<`, `>dog, then sleeps.<`)
		}},
		{"text-wrap-centred", "the lines centred on the box's left end", replace(`text-anchor="middle"`, `text-anchor="start"`)},
		{"text-overflow", "a right-aligned word too wide for its box starting at the box", replace(`<text x="65" y="31.33295" text-anchor="end">`, `<text x="35" y="31.33295">`)},
		{"text-rotated", "turned about the baseline's start, not the top-left corner", replace(`rotate(-15 60 35)`, `rotate(-15 60 39.66638)`)},
		{"image-fit", "cover drawn as contain", replace(`preserveAspectRatio="xMidYMid slice" href="data:image/png`, `preserveAspectRatio="xMidYMid meet" href="data:image/png`)},
		{"image-png-alpha", "the image upside down", replace(`<image image-rendering="pixelated" x="5" y="5" width="16" height="8"`, `<image image-rendering="pixelated" transform="rotate(180 13 9)" x="5" y="5" width="16" height="8"`)},
		{"image-rotated", "opacity 1, not 0.7", replace(`opacity="0.7"`, `opacity="1"`)},
		{"two-surfaces.2", "the front drawn on the back", func(string) (string, error) {
			svg, err := os.ReadFile(filepath.Join(fidelityDir, "two-surfaces.svg"))
			return string(svg), err
		}},
		{"shape-ellipse", "fill opacity 0.6 taken as 1", replace(`fill="#f0c000" fill-opacity="0.6"`, `fill="#f0c000"`)},
		{"line-caps", "round caps drawn butt", replace(`stroke-width="4" stroke-linecap="round"`, `stroke-width="4" stroke-linecap="butt"`)},
		{"path", "the path placed by its bounds' corner, not its origin", replace(`translate(55 0)`, `translate(45 -8)`)},
		{"path-view-box", "the view box's origin ignored", replace(`<ellipse cx="85" cy="10"`, `<ellipse cx="75" cy="5"`)},
		{"path-fill-rule", "evenodd drawn as nonzero", replace(`fill="#3030c0" fill-rule="evenodd"/>`, `fill="#3030c0" fill-rule="nonzero"/>`)},
		{"path-line-join", "bevel drawn as miter", replace(`stroke-linejoin="bevel"`, `stroke-linejoin="miter"`)},
		{"path-stroke", "a closed path filled as well as stroked", replace(`d="M 0 0 L 20 0 L 10 12 z" stroke="#30a050"`, `d="M 0 0 L 20 0 L 10 12 z" fill="#30a050" stroke="#30a050"`)},
		{"path-inches", "stroke_width taken as mm", replace(`stroke-width="1.27"`, `stroke-width="0.05"`)},
		{"rotation-paths", "a path turned about its origin, not its bounds' middle", replace(`rotate(90 27 15)`, `rotate(90 5 0)`)},
		{"rotation-paths", "a curve turned about its control points' box", replace(`rotate(90 60 22.5)`, `rotate(90 60 20)`)},
		{"gradient-linear", "90 drawn as 0", replace(`x1="75" y1="5" x2="75" y2="23"`, `x1="55" y1="14" x2="95" y2="14"`)},
		{"gradient-linear-45", "45 on a wide box from corner to corner", replace(`x1="15" y1="-5" x2="55" y2="35"`, `x1="5" y1="5" x2="65" y2="25"`)},
		{"gradient-linear-angle", "30 drawn at 45", replace(`x1="5.8373" y1="3.5497" x2="54.1627" y2="31.4503"`, `x1="11.25" y1="-1.25" x2="48.75" y2="36.25"`)},
		{"gradient-stops", "the middle stops at 0.25 and 0.75, not 0.2 and 0.7", replace(`<stop offset="0.2" stop-color="#f0c000"/><stop offset="0.5" stop-color="#30a050"/>
      <stop offset="0.7"`, `<stop offset="0.25" stop-color="#f0c000"/><stop offset="0.5" stop-color="#30a050"/>
      <stop offset="0.75"`)},
		{"gradient-radial", "r a fraction of the shorter side", replace(`cx="20" cy="25" r="20"`, `cx="20" cy="25" r="15"`)},
		{"gradient-shapes", "a path's gradient from the page's origin", replace(`x1="55" y1="0" x2="95" y2="0"`, `x1="0" y1="0" x2="40" y2="0"`)},
		{"gradient-cmyk", "two inks at once interpolated in sRGB", func(svg string) (string, error) {
			return replaceAll(svg, `<stop offset="0.125" stop-color="#fdded3"/><stop offset="0.25" stop-color="#fabfac"/>`, ``,
				`<stop offset="0.375" stop-color="#f8a089"/><stop offset="0.5" stop-color="#f6836c"/><stop offset="0.625" stop-color="#f46853"/>`, ``,
				`<stop offset="0.75" stop-color="#f14d3e"/><stop offset="0.875" stop-color="#ef342f"/>`, ``)
		}},
		{"gradient-rotated", "a gradient not turned with its rectangle", replace(`<linearGradient id="turned" gradientUnits="userSpaceOnUse"`, `<linearGradient id="turned" gradientUnits="userSpaceOnUse" gradientTransform="rotate(-30 75 15)"`)},
		{"group-translate", "a layer in a group turned about the group's origin", replace(`rotate(45 67.5 9)`, `rotate(45 0 0)`)},
		{"group-rotate", "a group turned anticlockwise", replace(`rotate(30)`, `rotate(-30)`)},
		{"group-scale", "stroke widths not scaled", replace(`stroke="#3030c0" stroke-width="2"`, `stroke="#3030c0" stroke-width="4"`)},
		{"group-scale", "text sizes not scaled", replace(`<text x="0" y="17.33313" font-family="Go" font-size="3.52778">`, `<text x="0" y="15.66656" font-family="Go" font-size="1.76389">`)},
		{"group-opacity", "SVG group opacity: overlapping layers flattened", func(svg string) (string, error) {
			return replaceAll(svg,
				`<rect x="5" y="5" width="35" height="25" fill="#c03030" fill-opacity="0.5"/>`,
				`<g opacity="0.5"><rect x="5" y="5" width="35" height="25" fill="#c03030"/>`,
				`fill="#3030c0" fill-opacity="0.5" stroke="#1a1a1a" stroke-width="1" stroke-opacity="0.5"/>`,
				`fill="#3030c0" stroke="#1a1a1a" stroke-width="1"/></g>`)
		}},
		{"group-nested", "the inner group's rotation lost", replace(`rotate(30) scale(0.5)`, `scale(0.5)`)},
		{"clip-rect", "a clip from the page's corner, not the layer's x, y", replace(`<rect x="3" y="10" width="30"`, `<rect x="-2" y="5" width="30"`)},
		{"clip-image", "the photo's circle clip missing", replace(` clip-path="url(#circle)"`, ``)},
		{"clip-text", "text clipped from its baseline, not its top", replace(`<rect x="5" y="5" width="60" height="6"/>`, `<rect x="5" y="14.33276" width="60" height="6"/>`)},
		{"clip-group", "a group's clip not scaled with it", replace(`width="50" height="40" rx="5"`, `width="62.5" height="50" rx="6.25"`)},
		{"clip-path", "a view_box clip at its own size", replace(`translate(55 3) scale(1.66667)`, `translate(55 3)`)},
		{"text-line-height", "letters at the top of the line's box, not centred in it", func(svg string) (string, error) {
			return replaceAll(svg, `y="9.75118">One`, `y="7.66638">One`, `y="19.62896">Two`, `y="17.54416">Two`, `y="29.50674">Three`, `y="27.42194">Three`)
		}},
		{"text-letter-spacing", "letter spacing 10% short", replace(`letter-spacing="0.98778"`, `letter-spacing="0.889"`)},
		{"text-letter-spacing", "a centred line counting the spacing after its last letter", replace(`<text x="36.7576"`, `<text x="36.01677"`)},
		{"text-spans", "a span in the layer's colour, not its own", replace(`<tspan font-weight="bold" fill="#c03030">Ada</tspan>`, `<tspan font-weight="bold">Ada</tspan>`)},
		{"text-spans", "spans' baselines at their own ascent, not the line's", replace(`<tspan fill="#3030c0">and small</tspan>`, `<tspan fill="#3030c0" dy="-5.66632">and small</tspan>`)},
		{"text-decoration", "the underline on the baseline", replace(`<rect x="5" y="9.47161"`, `<rect x="5" y="8.66632"`)},
		{"text-valign", "bottom putting the baseline on the box's bottom", replace(`y="43.73496"`, `y="45"`)},
		{"text-shrink", "a size 5% below the largest that fits", replace(`<text x="5" y="11.85503" font-size="9.37214">`, `<text x="5" y="11.41227" font-size="8.90353">`)},
		{"text-fallback", "a line with fallback characters at the Go fonts' ascent", replace(`<text x="5" y="20.41103"`, `<text x="5" y="19.66632"`)},
		{"text-missing-warn", "a missing character taking a space's room", replace(`<text x="19.00328"`, `<text x="20.6695"`)},
		{"image-crop", "crop's x and y ignored", replace(`viewBox="40 20 80 40" preserveAspectRatio="xMidYMid slice"`, `viewBox="0 0 80 40" preserveAspectRatio="xMidYMid slice"`)},
		{"image-flip", "flip y drawn as flip x", replace(`matrix(1 0 0 -1 0 21)`, `matrix(-1 0 0 1 122 0)`)},
		{"image-grayscale", "grey by CSS's grayscale() (Rec. 709 luma), not Rec. 601", replace(`values="0.299 0.587 0.114 0 0  0.299 0.587 0.114 0 0  0.299 0.587 0.114 0 0  0 0 0 1 0"`, `values="0.2126 0.7152 0.0722 0 0  0.2126 0.7152 0.0722 0 0  0.2126 0.7152 0.0722 0 0  0 0 0 1 0"`)},
		{"image-svg", "cover drawn as contain", replace(`preserveAspectRatio="xMidYMid slice"><use`, `preserveAspectRatio="xMidYMid meet"><use`)},
		{"image-svg", "opacity on each shape, not on the art as one", func(svg string) (string, error) {
			return replaceAll(svg, `<g opacity="0.5" transform="matrix(-1 0 0 1 150 0)">`, `<g fill-opacity="0.5" transform="matrix(-1 0 0 1 150 0)">`)
		}},
	}
}

// writeWrongSVGs writes each wrong SVG into dir, and returns them with
// the oracles' jobs of drawing them, in the same order.
func writeWrongSVGs(pages []fidelityPage, dir string) ([]wrongSVG, []svgJob, error) {
	byLabel := map[string]fidelityPage{}
	for _, p := range pages {
		byLabel[p.label] = p
	}
	wrong := wrongSVGs()
	jobs := make([]svgJob, len(wrong))
	for i, w := range wrong {
		p, ok := byLabel[w.page]
		if !ok {
			return nil, nil, fmt.Errorf("wrong SVG %q: no page %s", w.what, w.page)
		}
		job, err := writeWrongSVG(p, w, dir, i)
		if err != nil {
			return nil, nil, fmt.Errorf("%s, %s: %w", w.page, w.what, err)
		}
		jobs[i] = job
	}
	return wrong, jobs, nil
}

// writeWrongSVG writes the wrong version of the page's SVG into dir.
func writeWrongSVG(p fidelityPage, w wrongSVG, dir string, n int) (svgJob, error) {
	svg, err := os.ReadFile(p.svg)
	if err != nil {
		return svgJob{}, err
	}
	changed, err := w.change(string(svg))
	if err != nil {
		return svgJob{}, err
	}
	if changed == string(svg) {
		return svgJob{}, fmt.Errorf("the change changes nothing")
	}
	job := svgJobOf(p)
	job.name = fmt.Sprintf("wrong-%02d-%s", n, p.label)
	job.path = filepath.Join(dir, job.name+".svg")
	return job, os.WriteFile(job.path, []byte(changed), 0o600)
}

// wrongCount counts the comparisons of Platen's pages with wrong pictures
// and how many of them failed, as every one must.
type wrongCount struct{ all, failed int }

func (c *wrongCount) add(d wrongCount) { c.all, c.failed = c.all+d.all, c.failed+d.failed }

// check counts a comparison, failing t when its share of pixels off is
// within the fixture's threshold, and logging it otherwise (seen with -v).
func (c *wrongCount) check(t *testing.T, page, what, oracle string, share, maxOff float64) {
	t.Helper()
	c.all++
	if share <= maxOff {
		t.Errorf("%s, %s: passes against %s (%.2f%% of pixels off, %.2f%% allowed): the fixture cannot catch it",
			page, what, oracle, 100*share, 100*maxOff)
		return
	}
	c.failed++
	t.Logf("%-18s %-62s %-8s %6.2f%% off (%.2f%% allowed)", page, what, oracle, 100*share, 100*maxOff)
}

// checkWrongSVGs checks that each wrong SVG is reported against both
// oracles, with its fixture's own tolerance and threshold, as
// checkFidelityPage would: a fixture that cannot fail tests nothing.
// platen holds the pages' rasters; rsvg and chromium the wrong SVGs'.
func checkWrongSVGs(t *testing.T, pages []fidelityPage, wrong []wrongSVG, platen, rsvg, chromium []raster) wrongCount {
	var count wrongCount
	byLabel := map[string]int{}
	for i, p := range pages {
		byLabel[p.label] = i
	}
	for i, w := range wrong {
		p := byLabel[w.page]
		fx := pages[p].fixture
		if platen[p].err != nil {
			t.Errorf("%s: Platen: %v", w.page, platen[p].err)
			continue
		}
		for _, o := range []struct {
			name string
			r    raster
		}{{"rsvg", rsvg[i]}, {"chromium", chromium[i]}} {
			if o.r.err != nil {
				t.Errorf("%s, %s: %s: %v", w.page, w.what, o.name, o.r.err)
				continue
			}
			count.check(t, w.page, w.what, o.name, comparePixels(platen[p].img, o.r.img, fx.tolerance).share(), fx.maxOff)
		}
	}
	return count
}

// pageShift is how far checkShiftedPages moves every page: two pixels,
// far less than any defect worth the name.
const pageShift = 0.5

// checkShiftedPages checks that every page's comparison fails when the
// oracles' pictures are moved pageShift mm to the right (paper showing
// where they were), as an SVG drawn 0.5 mm off would be: a fixture whose
// threshold lets that pass could not catch a misplaced layer.
func checkShiftedPages(t *testing.T, pages []fidelityPage, platen, rsvg, chromium []raster) wrongCount {
	var count wrongCount
	dx := int(pageShift * pxPerMM)
	for i, p := range pages {
		if platen[i].err != nil {
			continue // reported by the page's own test
		}
		for _, o := range []struct {
			name string
			r    raster
		}{{"rsvg", rsvg[i]}, {"chromium", chromium[i]}} {
			if o.r.err != nil {
				continue
			}
			share := comparePixels(platen[i].img, shiftedRight(o.r.img, dx), p.fixture.tolerance).share()
			count.check(t, p.label, fmt.Sprintf("everything moved %g mm right", pageShift), o.name, share, p.fixture.maxOff)
		}
	}
	return count
}

// shiftedRight returns img moved dx pixels to the right, white paper in
// the dx columns it uncovers.
func shiftedRight(img *image.RGBA, dx int) *image.RGBA {
	out := image.NewRGBA(img.Rect)
	draw.Draw(out, out.Rect, image.White, image.Point{}, draw.Src)
	draw.Draw(out, img.Rect.Add(image.Pt(dx, 0)), img, img.Rect.Min, draw.Src)
	return out
}
