package render

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"testing"

	"github.com/platen-print/platen/internal/designdoc"
)

// TestFabricImagesDrawWhatTheImageHas: a fabric image draws what its
// source has of the part the canvas saved, as fabric clamps it (a photo
// replaced by a smaller one, a crop past its edge), and an SVG image
// draws whole over its box: none fails the print.
func TestFabricImagesDrawWhatTheImageHas(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 10, 10))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	img.Set(5, 5, color.NRGBA{R: 200, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	pngURL := "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
	svgURL := "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(
		`<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect width="20" height="20" fill="#3030c0"/></svg>`))
	for name, object := range map[string]string{
		"larger than the image": `{"type": "Image", "src": "` + pngURL + `", "width": 20, "height": 20}`,
		"cropped past its edge": `{"type": "Image", "src": "` + pngURL + `", "width": 10, "height": 10, "cropX": 4, "cropY": 4}`,
		"wholly past its edge":  `{"type": "Image", "src": "` + pngURL + `", "width": 10, "height": 10, "cropX": 40}`,
		"an SVG":                `{"type": "Image", "src": "` + svgURL + `", "width": 20, "height": 20}`,
	} {
		t.Run(name, func(t *testing.T) {
			doc, err := designdoc.Parse([]byte(`{"format": "fabric", "width": 100, "height": 70, "canvas": {"width": 800, "height": 560},
				"fabric": {"objects": [` + object + `]}}`))
			if err != nil {
				t.Fatal(err)
			}
			imgs, err := fixtureImages(doc)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := New(imgs, NewFonts(nil)).PDF(context.Background(), doc, Settings{DPI: 300}); err != nil {
				t.Errorf("PDF: %v", err)
			}
			if _, err := New(imgs, NewFonts(nil)).Preflight(context.Background(), doc, Settings{DPI: 300}, Limits{}); err != nil {
				t.Errorf("Preflight: %v", err)
			}
		})
	}
}
