package canvaspdf_test

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tdewolff/canvas"
	cimage "github.com/tdewolff/canvas/image"
	"golang.org/x/image/font/gofont/goregular"

	"github.com/platen-print/platen/internal/iccprofile"
	"github.com/platen-print/platen/internal/pdfxtest"
	"github.com/platen-print/platen/third_party/canvaspdf"
)

// helvetica is Go Regular renamed Helvetica (both spellings of its
// PostScript name, same length): upstream would have written it as the
// standard font, not embedded.
func helvetica(t *testing.T) *canvas.Font {
	t.Helper()
	b := bytes.ReplaceAll(bytes.Clone(goregular.TTF), []byte("GoRegular"), []byte("Helvetica"))
	b = bytes.ReplaceAll(b, utf16be("GoRegular"), utf16be("Helvetica"))
	font, err := canvas.LoadFont(b, 0, canvas.FontRegular)
	if err != nil || font.Name() != "Helvetica" {
		t.Fatalf("font %v: %v", font, err)
	}
	return font
}

func utf16be(s string) []byte {
	var b []byte
	for _, r := range s {
		b = append(b, 0, byte(r))
	}
	return b
}

// grayJPEG is a small gray JPEG, kept as its bytes (DeviceGray, which a
// CMYK output intent covers).
func grayJPEG(t *testing.T) image.Image {
	t.Helper()
	g := image.NewGray(image.Rect(0, 0, 16, 16))
	for i := range g.Pix {
		g.Pix[i] = uint8(i)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, g, nil); err != nil {
		t.Fatal(err)
	}
	img, err := cimage.NewJPEGImage(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// translucent is an RGBA image with an alpha channel: RGB samples plus a
// gray soft mask.
func translucent() image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = 200, 40, 10, uint8(i)
	}
	return img
}

// draw writes a two-page document using everything Platen's renderer
// uses and some it does not yet (gradients, gray, stroked text): the
// second page sets no boxes.
func draw(t *testing.T, opts *canvaspdf.Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	pdf := canvaspdf.New(&buf, 100, 80, opts)
	pdf.SetInfo("A card (test)", "", "", "", "Platen")
	pdf.SetPageBoxes(canvas.Rect{X0: 3, Y0: 3, X1: 97, Y1: 77}, canvas.Rect{X1: 100, Y1: 80})
	c := canvas.NewContext(pdf)
	c.SetFillColor(color.RGBA{R: 0xf2, G: 0xe8, B: 0xd5, A: 0xff})
	c.SetStrokeColor(color.RGBA{A: 0xff})
	c.SetStrokeWidth(0.3)
	c.DrawPath(10, 10, canvas.Rectangle(40, 20))
	c.SetFillColor(color.RGBA{R: 0x80, G: 0x80, B: 0x80, A: 0xff}) // gray
	c.DrawPath(60, 10, canvas.Rectangle(20, 20))
	grad := canvas.NewLinearGradient(canvas.Point{X: 0, Y: 0}, canvas.Point{X: 20, Y: 0})
	grad.Add(0, color.RGBA{R: 255, A: 255})
	grad.Add(1, color.RGBA{B: 255, A: 255})
	c.SetFillGradient(grad)
	c.DrawPath(10, 40, canvas.Rectangle(20, 10))
	c.SetFillColor(color.RGBA{R: 0x1a, G: 0x1a, B: 0x1a, A: 0xff}) // after the pattern
	face := helvetica(t).Face(12, color.RGBA{R: 0x1a, G: 0x1a, B: 0x1a, A: 0xff})
	c.DrawText(40, 50, canvas.NewTextLine(face, "Hello, PDF/X", canvas.Left))
	c.DrawImage(40, 60, grayJPEG(t), canvas.DPMM(1))
	c.DrawImage(60, 60, translucent(), canvas.DPMM(1))
	pdf.NewPage(100, 80)
	c = canvas.NewContext(pdf)
	c.SetFillColor(color.RGBA{R: 0x20, G: 0xc0, B: 0x20, A: 0x80}) // translucent green
	c.DrawPath(10, 10, canvas.Rectangle(30, 30))
	if err := pdf.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestEveryFileIsPDFX4(t *testing.T) {
	pdf := draw(t, nil)
	if pages := pdfxtest.Objects(t, pdf, iccprofile.FOGRA39); pages != 2 {
		t.Errorf("%d pages", pages)
	}
	path := filepath.Join(t.TempDir(), "card.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	var colours []string
	for _, img := range pdfxtest.Tools(t, path, 2) {
		colours = append(colours, img.Type+":"+img.Colour)
	}
	// The gray JPEG, the RGB image (icc) and its soft mask.
	if got := strings.Join(colours, " "); got != "image:gray image:icc smask:gray" {
		t.Errorf("pdfimages: %s", got)
	}
	if !bytes.Contains(pdf, []byte("/Info(Coated FOGRA39")) {
		t.Error("the default output intent is not FOGRA39")
	}
}

func TestAnOutputIntentOfTheCallersOwn(t *testing.T) {
	// FOGRA39's bytes with another date: any CMYK output profile will do.
	profile := bytes.Clone(iccprofile.FOGRA39)
	profile[24] ^= 1
	oi, err := canvaspdf.NewOutputIntent(canvaspdf.OutputCondition{Profile: profile, Identifier: "Shop press 2"})
	if err != nil {
		t.Fatal(err)
	}
	pdf := draw(t, &canvaspdf.Options{Compress: true, SubsetFonts: true, OutputIntent: oi})
	pdfxtest.ObjectsWith(t, pdf, profile, pdfxtest.Custom)
	if !bytes.Contains(pdf, []byte("/OutputConditionIdentifier(Shop press 2)")) {
		t.Error("the caller's identifier is not in the file")
	}
	for what, c := range map[string]canvaspdf.OutputCondition{
		"an RGB profile":    {Profile: iccprofile.SRGB, Identifier: "sRGB"},
		"no identifier":     {Profile: iccprofile.FOGRA39},
		"a cut-off profile": {Profile: iccprofile.FOGRA39[:1000], Identifier: "x"},
	} {
		if _, err := canvaspdf.NewOutputIntent(c); err == nil {
			t.Errorf("%s: accepted", what)
		}
	}
}
