package reference_test

import (
	"bytes"
	"encoding/xml"
	"image/jpeg"
	"testing"

	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/render/reference"
)

func TestDocument(t *testing.T) {
	const src = "http://127.0.0.1:1/photo.jpg?n=1&x=\"y\""
	doc, err := designdoc.Parse(reference.Document(src))
	if err != nil {
		t.Fatal(err)
	}
	s := doc.Surfaces[0]
	if len(doc.Surfaces) != 1 || len(s.Layers) != 3 || s.Layers[0].Src != src {
		t.Errorf("surfaces %+v", doc.Surfaces)
	}
	if doc.Bleed != 3 || doc.DPI != 300 {
		t.Errorf("bleed %v, dpi %v", doc.Bleed, doc.DPI)
	}
}

func TestCard(t *testing.T) {
	doc, err := designdoc.Parse(reference.Card("https://example.com/p.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	l := doc.Surfaces[0].Layers
	if doc.Width != 105 || doc.Height != 148.5 || doc.Bleed != 1.5 || doc.DPI != 300 ||
		l[0].Src != "https://example.com/p.jpg" || l[0].Height != 74 || l[1].StrokeWidth != 0.15 || l[2].FontSize != 12 {
		t.Errorf("card %+v, layers %+v", doc, l)
	}
}

func TestPhoto(t *testing.T) {
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(reference.Photo))
	if err != nil || cfg.Width != 1800 || cfg.Height != 1200 {
		t.Errorf("photo: %+v, %v", cfg, err)
	}
}

// TestSVG checks that page.svg is well-formed and of the page's size; how
// it looks beside Platen's render was compared by eye and with pdftotext.
func TestSVG(t *testing.T) {
	var svg struct {
		Width  string `xml:"width,attr"`
		Height string `xml:"height,attr"`
		Image  struct {
			Href string `xml:"href,attr"`
		} `xml:"image"`
	}
	if err := xml.Unmarshal(reference.SVG, &svg); err != nil {
		t.Fatal(err)
	}
	if svg.Width != "216mm" || svg.Height != "303mm" || svg.Image.Href != "photo.jpg" {
		t.Errorf("%+v", svg)
	}
}
