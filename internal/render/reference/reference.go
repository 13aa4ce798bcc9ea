// Package reference holds the reference page of the rendering benchmarks
// and of the render tests (issue 4): A4 with 3 mm bleed, one 1800×1200 JPEG photo in cover fit, a
// rounded rectangle and two lines of text. The same page comes as a Platen
// design document, for Platen, and as SVG, for rsvg-convert, so that both
// are timed on one page.
//
// It lives in the main module, not in bench/ with the benchmark driver,
// because the render tests use it too. The files are embedded so that
// neither needs a path; they also sit in this folder for use from the shell:
//
//	rsvg-convert -f pdf -o page.pdf internal/render/reference/page.svg
package reference

import (
	"bytes"
	_ "embed"
	"encoding/json"
)

var (
	//go:embed design.json
	design []byte

	// Photo is the page's 1800×1200 JPEG (quality 90): a red left half, a
	// blue right half and a green band 40 px wide at each side, which the
	// cover fit crops away. Read only.
	//
	//go:embed photo.jpg
	Photo []byte

	// SVG is the same page for rsvg-convert: 216×303 mm (the trim box and
	// 3 mm of bleed all round), with the photo linked as photo.jpg beside
	// it. Read only.
	//
	//go:embed page.svg
	SVG []byte
)

// photoPlaceholder is the image src of design.json; Document replaces it,
// because the photo's address is only known once something serves it.
const photoPlaceholder = `"{{photo_url}}"`

// Document returns the design document with its photo at photoURL.
func Document(photoURL string) []byte {
	src, _ := json.Marshal(photoURL) // a string always marshals
	return bytes.Replace(design, []byte(photoPlaceholder), src, 1)
}

// cardScale makes the A4 page an A6-sized card (105 × 148.5 mm).
const cardScale = 0.5

// Card returns the page at half its size, an A6-sized card with its photo
// at photoURL: every length and text size halved. Batches lay it out, as
// several fit a press sheet.
func Card(photoURL string) []byte {
	var doc map[string]any
	_ = json.Unmarshal(Document(photoURL), &doc) // design.json is valid JSON
	scale(doc)
	out, _ := json.Marshal(doc) // decoded JSON always encodes
	return out
}

// lengths are the members of a design that are lengths or text sizes.
var lengths = map[string]bool{"width": true, "height": true, "bleed": true, "x": true, "y": true,
	"stroke_width": true, "radius": true, "size": true}

// scale halves the lengths of v, a decoded design, in place.
func scale(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, member := range v {
			if n, ok := member.(float64); ok && lengths[k] {
				v[k] = n * cardScale
			} else {
				scale(member)
			}
		}
	case []any:
		for _, e := range v {
			scale(e)
		}
	}
}
