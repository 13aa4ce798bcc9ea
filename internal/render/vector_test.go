package render

import (
	"bytes"
	"context"
	"image/png"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/designdoc"
)

// logo is an SVG of two overlapping shapes: a blue field and a red disc.
const logo = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 50"><rect width="100" height="50" fill="#3030c0"/><circle cx="75" cy="25" r="20" fill="#c03030"/></svg>`

func vectorDoc(t *testing.T, layer string) *designdoc.Document {
	t.Helper()
	d, err := designdoc.Parse([]byte(`{"width": 60, "height": 30, "layers": [{"type": "image", "src": "https://x/logo.svg", "x": 0, "y": 0, "width": 60, "height": 30` + layer + `}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestSVGImagesAreVectors: an SVG image becomes paths in the PDF, no
// image at all; the PNG shows it where fit puts it; opacity fades it as
// one (the disc does not show the field through it); what only pixels
// have is refused naming the member.
func TestSVGImagesAreVectors(t *testing.T) {
	r := New(images{"https://x/logo.svg": {Data: []byte(logo), Format: "svg"}, "https://x/bad.svg": {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`), Format: "svg"}}, NewFonts(nil))
	ctx := context.Background()
	pdf, err := r.PDF(ctx, vectorDoc(t, ""), Settings{DPI: 300})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(pdf, []byte("/Image")) {
		t.Error("the PDF holds an image: the SVG was rasterised")
	}
	for fit, want := range map[string][3]uint8{"contain": {0xc0, 0x30, 0x30}, "fill": {0xc0, 0x30, 0x30}} {
		png := vectorPNG(t, r, vectorDoc(t, `, "fit": "`+fit+`"`))
		if got := pixelAt(t, png, 45, 15); got != want {
			t.Errorf("%s: the disc's centre is %v, want %v", fit, got, want)
		}
	}
	// Half opacity over white paper: the disc is pink, not the purple
	// it would be if the field showed through it.
	faded := vectorPNG(t, r, vectorDoc(t, `, "opacity": 0.5`))
	if got := pixelAt(t, faded, 45, 15); got[2] > 0xa0 || got[0] < 0xd0 {
		t.Errorf("the faded disc is %v: the field shows through it", got)
	}
	for _, c := range []struct{ src, member, want string }{
		{"logo", `, "grayscale": true`, "grayscale applies to PNG, JPEG and WebP images"},
		{"logo", `, "crop": {"width": 10, "height": 10}`, "crop applies to PNG, JPEG and WebP images"},
		{"logo", `, "cut_offset": 1`, "cut_offset and underbase trace an image's opaque pixels"},
		{"bad", "", "script"},
	} {
		d, err := designdoc.Parse([]byte(`{"width": 60, "height": 30, "layers": [{"type": "image", "src": "https://x/` + c.src + `.svg", "width": 60, "height": 30` + c.member + `}]}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.PDF(ctx, d, Settings{}); err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "layers[0]: ") {
			t.Errorf("%s%s: %v, want the layer named and %q", c.src, c.member, err, c.want)
		}
	}
}

func vectorPNG(t *testing.T, r *Renderer, d *designdoc.Document) []byte {
	t.Helper()
	out, err := r.PNG(context.Background(), d, 0, Settings{DPI: 100})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// pixelAt is the colour x, y mm from a PNG's top-left corner, over white.
func pixelAt(t *testing.T, data []byte, x, y float64) [3]uint8 {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	r, g, b, a := img.At(int(x*100/25.4), int(y*100/25.4)).RGBA()
	white := 0xffff - a
	return [3]uint8{uint8((r + white) >> 8), uint8((g + white) >> 8), uint8((b + white) >> 8)}
}
