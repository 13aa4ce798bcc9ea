package render

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/iccprofile"
	"github.com/platen-print/platen/internal/pdfxtest"
	"github.com/platen-print/platen/internal/testtools"
)

// stickerPNG is a 200 × 200 px red disc of radius 80 px on transparency.
func stickerPNG(t testing.TB) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 200, 200))
	for y := 0; y < 200; y++ {
		for x := 0; x < 200; x++ {
			if dx, dy := float64(x)+0.5-100, float64(y)+0.5-100; dx*dx+dy*dy <= 80*80 {
				img.SetNRGBA(x, y, color.NRGBA{R: 220, G: 30, B: 30, A: 255})
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const stickerSrc = "https://example.com/sticker.png"

// The sticker page: 60 × 60 mm; a process band (cyan 100, magenta 50) at
// the top, a half tint of a Gold spot at the bottom, and the disc placed
// over 40 mm (radius 16 mm, centred on 30, 30), its white underbase, and a
// cut contour 2 mm outside it.
const stickerDoc = `{"width": 60, "height": 60, "layers": [
	{"type": "rect", "x": 0, "y": 0, "width": 60, "height": 8, "fill": "cmyk(100, 50, 0, 0)"},
	{"type": "rect", "x": 0, "y": 52, "width": 60, "height": 8, "fill": "spot(Gold, cmyk(0, 20, 80, 10), 50)"},
	{"type": "image", "src": "` + stickerSrc + `", "x": 10, "y": 10, "width": 40, "height": 40, "fit": "contain",
	 "underbase": "spot(White, cmyk(0, 0, 0, 25))", "cut_offset": 2}
]}`

const (
	discRadius  = 16.0
	cutRadius   = 18.0
	plateDPI    = 200
	plateMargin = 0.3 // mm: two pixels of a 200-dpi plate, and the tracing's grid
)

func stickerRenderer(t testing.TB) *Renderer {
	return New(images{stickerSrc: {Data: stickerPNG(t), Format: "png"}}, NewFonts(nil))
}

func renderFile(t *testing.T, r *Renderer, doc string, settings Settings) (string, []byte) {
	t.Helper()
	parsed, err := designdoc.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	pdf, err := r.PDF(context.Background(), parsed, settings)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "inks.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, pdf
}

// TestStickerSeparations separates the sticker page with Ghostscript and
// looks at every plate: the CMYK and spot amounts asked for, the white
// underbase exactly under the disc, the cut line on the circle 2 mm
// outside it, and no ink anywhere else.
func TestStickerSeparations(t *testing.T) {
	path, pdf := renderFile(t, stickerRenderer(t), stickerDoc, Settings{})
	pdfxtest.Objects(t, pdf, iccprofile.FOGRA39)
	pdfxtest.Tools(t, path, 1)
	plates := pdfxtest.Separate(t, path, 1, plateDPI)
	t.Run("process and spot amounts as asked", func(t *testing.T) {
		want := map[string][2]float64{"Cyan": {1, 0}, "Magenta": {0.5, 0}, "Yellow": {0, 0}, "Black": {0, 0}, "Gold": {0, 0.5}}
		for ink, amounts := range want {
			if got := plates.Ink(ink, 30, 4); !pdfxtest.Near(got, amounts[0]) {
				t.Errorf("%s in the top band: %.2f, want %.2f", ink, got, amounts[0])
			}
			if got := plates.Ink(ink, 30, 56); !pdfxtest.Near(got, amounts[1]) {
				t.Errorf("%s in the bottom band: %.2f, want %.2f", ink, got, amounts[1])
			}
		}
	})
	t.Run("the artwork's inks are kept over its underbase", func(t *testing.T) {
		if m := plates.Ink("Magenta", 30, 30); m < 0.7 {
			t.Errorf("magenta at the disc's centre: %.2f, the red is gone", m)
		}
	})
	eachPixel := func(f func(x, y, r float64)) {
		for y := 0.0; y < 60; y += 25.4 / plateDPI {
			for x := 0.0; x < 60; x += 25.4 / plateDPI {
				f(x, y, math.Hypot(x+0.5*25.4/plateDPI-30, y+0.5*25.4/plateDPI-30))
			}
		}
	}
	t.Run("white exactly under the disc", func(t *testing.T) {
		wrong := 0
		eachPixel(func(x, y, r float64) {
			white := plates.Ink("White", x, y)
			if r < discRadius-plateMargin && white < 0.98 || r > discRadius+plateMargin && white > 0 {
				wrong++
			}
		})
		if wrong > 0 {
			t.Errorf("%d pixels of the White plate are wrong: inked outside the disc or bare inside it", wrong)
		}
	})
	t.Run("the cut line on the circle 2 mm outside the disc, and nowhere else", func(t *testing.T) {
		stray, inked := 0, 0
		eachPixel(func(x, y, r float64) {
			if plates.Ink("CutContour", x, y) == 0 {
				return
			}
			inked++
			if math.Abs(r-cutRadius) > plateMargin {
				stray++
			}
		})
		if stray > 0 || inked == 0 {
			t.Errorf("%d of the CutContour plate's %d inked pixels are off the circle", stray, inked)
		}
		for deg := 0; deg < 360; deg += 5 {
			sin, cos := math.Sincos(float64(deg) * math.Pi / 180)
			if !plates.InkNear("CutContour", 30+cutRadius*cos, 30+cutRadius*sin, plateMargin) {
				t.Errorf("the cut line has a gap at %d°", deg)
			}
		}
		if c := plates.Covered("CutContour"); c > 0.03 {
			t.Errorf("the cut line covers %.1f %% of the page: not a hairline", 100*c)
		}
	})
	t.Run("the Gold spot only in its band", func(t *testing.T) {
		if c := plates.Covered("Gold"); math.Abs(c-8.0/60) > 0.01 {
			t.Errorf("Gold covers %.3f of the page, want %.3f", c, 8.0/60)
		}
	})
}

// TestCutShapes draws a cut rectangle with rounded corners, an ellipse and
// a turned SVG path, and finds each on the CutContour plate where the
// document puts it, and nothing where it does not.
func TestCutShapes(t *testing.T) {
	doc := `{"width": 100, "height": 100, "layers": [
		{"type": "cut", "x": 10, "y": 10, "width": 30, "height": 20, "radius": 5},
		{"type": "cut", "shape": "ellipse", "x": 60, "y": 10, "width": 30, "height": 20},
		{"type": "cut", "path": "M 0 0 L 40 0 L 40 20 Z", "x": 30, "y": 60, "rotation": 90}
	]}`
	path, pdf := renderFile(t, New(images{}, NewFonts(nil)), doc, Settings{CutSpot: "Thru-cut"})
	pdfxtest.Objects(t, pdf, iccprofile.FOGRA39)
	plates := pdfxtest.Separate(t, path, 1, 300)
	on := map[string][2]float64{
		"rectangle's top side": {25, 10}, "rectangle's rounded corner": {10 + 5 - 5/math.Sqrt2, 10 + 5 - 5/math.Sqrt2},
		"ellipse's left end": {60, 20}, "ellipse's bottom": {75, 30},
		// The triangle (30, 60)-(70, 60)-(70, 80), turned 90° clockwise
		// about its box's centre (50, 70): (60, 50)-(60, 90)-(40, 90).
		"triangle's long side": {60, 70}, "triangle's bottom": {50, 90},
	}
	for what, p := range on {
		if !plates.InkNear("Thru-cut", p[0], p[1], 0.3) {
			t.Errorf("no cut at the %s (%v)", what, p)
		}
	}
	off := map[string][2]float64{
		"rectangle's sharp corner": {10, 10}, "ellipse's box corner": {60, 10},
		"triangle's top before turning": {40, 60}, "rectangle's inside": {25, 20},
	}
	for what, p := range off {
		if plates.InkNear("Thru-cut", p[0], p[1], 0.5) {
			t.Errorf("a cut at the %s (%v)", what, p)
		}
	}
	for _, process := range []string{"Cyan", "Magenta", "Yellow", "Black"} {
		if c := plates.Covered(process); c > 0 {
			t.Errorf("the cut lines put %s on %.3f of the page: they must be on their own plate only", process, c)
		}
	}
}

// TestSheetsKeepContours imposes the sticker twice on a sheet: each copy
// keeps its underbase and its cut line in its own place.
func TestSheetsKeepContours(t *testing.T) {
	doc, err := designdoc.Parse([]byte(stickerDoc))
	if err != nil {
		t.Fatal(err)
	}
	sheet := Sheet{Placements: []Placement{
		{Doc: doc, X: 0, Y: 0, Width: 60, Height: 60},
		{Doc: doc, X: 70, Y: 0, Width: 60, Height: 60},
	}}
	pdf, err := stickerRenderer(t).Sheets(context.Background(), Settings{CutSpot: "Kiss-cut"}, 130, 60, []Sheet{sheet})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sheet.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	plates := pdfxtest.Separate(t, path, 1, 150)
	for _, cx := range []float64{30, 100} {
		for deg := 0; deg < 360; deg += 30 {
			sin, cos := math.Sincos(float64(deg) * math.Pi / 180)
			if !plates.InkNear("Kiss-cut", cx+cutRadius*cos, 30+cutRadius*sin, 0.4) {
				t.Errorf("the copy at x %v has no cut line at %d°", cx, deg)
			}
		}
		if w := plates.Ink("White", cx, 30); w < 0.98 {
			t.Errorf("the copy at x %v has %.2f white under its centre", cx, w)
		}
	}
	if plates.InkNear("Kiss-cut", 65, 30, 3) {
		t.Error("a cut line between the copies")
	}
}

// TestPNGLeavesPlatesOut: the PNG shows the artwork and the process and
// spot colours' looks, but not the plates that overprint (the underbase)
// nor the cut line.
func TestPNGLeavesPlatesOut(t *testing.T) {
	doc, err := designdoc.Parse([]byte(stickerDoc))
	if err != nil {
		t.Fatal(err)
	}
	data, err := stickerRenderer(t).PNG(context.Background(), doc, 0, Settings{DPI: 100})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	at := func(x, y float64) color.RGBA {
		return color.RGBAModel.Convert(img.At(int(x*100/25.4), int(y*100/25.4))).(color.RGBA)
	}
	checks := []struct {
		what string
		x, y float64
		want color.RGBA
	}{
		{"the disc, not its underbase", 30, 30, color.RGBA{R: 220, G: 30, B: 30, A: 255}},
		{"the cut line's place: bare", 30 + cutRadius, 30, color.RGBA{}},
		{"cmyk(100, 50, 0, 0)'s look", 30, 4, color.RGBA{R: 0, G: 128, B: 255, A: 255}},
		{"a half tint of Gold's look", 30, 56, color.RGBA{R: 243, G: 220, B: 151, A: 255}},
	}
	for _, c := range checks {
		got := at(c.x, c.y)
		near := func(a, b uint8) bool { return math.Abs(float64(a)-float64(b)) <= 3 }
		if !near(got.R, c.want.R) || !near(got.G, c.want.G) || !near(got.B, c.want.B) || !near(got.A, c.want.A) {
			t.Errorf("%s: %v, want %v", c.what, got, c.want)
		}
	}
}

// TestTextOverprints: black text in cmyk(0, 0, 0, 100) with overprint over
// a cyan panel keeps the cyan under the letters; without overprint it
// knocks the cyan out.
func TestTextOverprints(t *testing.T) {
	for _, overprint := range []bool{true, false} {
		doc := `{"width": 80, "height": 40, "layers": [
			{"type": "rect", "width": 80, "height": 40, "fill": "cmyk(100, 0, 0, 0)"},
			{"type": "text", "text": "■", "font": "Go-Regular", "size": 72, "x": 10, "y": 5, "color": "cmyk(0, 0, 0, 100)", "overprint": ` + strconv.FormatBool(overprint) + `}
		]}`
		path, pdf := renderFile(t, New(images{}, NewFonts(nil)), doc, Settings{})
		pdfxtest.Objects(t, pdf, iccprofile.FOGRA39)
		plates := pdfxtest.Separate(t, path, 1, 100)
		// The square glyph's middle: 72 pt is 25.4 mm, the glyph's box
		// about two thirds of it, from just under the line's top.
		x, y := 10+0.35*25.4, 5+0.55*25.4
		if k := plates.Ink("Black", x, y); !pdfxtest.Near(k, 1) {
			t.Fatalf("overprint %v: black %.2f under the letter, want 1", overprint, k)
		}
		want := 0.0
		if overprint {
			want = 1
		}
		if c := plates.Ink("Cyan", x, y); !pdfxtest.Near(c, want) {
			t.Errorf("overprint %v: cyan %.2f under the letter, want %v", overprint, c, want)
		}
		if c := plates.Ink("Cyan", 75, 35); !pdfxtest.Near(c, 1) {
			t.Errorf("overprint %v: cyan %.2f beside the letter, want 1", overprint, c)
		}
	}
}

// cmykJPEG is a 72 × 72 CMYK JPEG as Photoshop writes them (an Adobe
// marker, inverted samples), made by Ghostscript: its left half C0 M100
// Y100 K0, its right half C50 M0 Y0 K20.
func cmykJPEG(t *testing.T) []byte {
	t.Helper()
	testtools.Need(t, "ghostscript", "gs")
	dir := t.TempDir()
	ps, out := filepath.Join(dir, "halves.ps"), filepath.Join(dir, "halves.jpg")
	halves := "%!PS\n0 1 1 0 setcmykcolor 0 0 36 72 rectfill\n0.5 0 0 0.2 setcmykcolor 36 0 36 72 rectfill\nshowpage\n"
	if err := os.WriteFile(ps, []byte(halves), 0o600); err != nil {
		t.Fatal(err)
	}
	gs := exec.Command("gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=jpegcmyk", "-dJPEGQ=98", "-g72x72", "-r72", "-sOutputFile="+out, ps)
	if msg, err := gs.CombinedOutput(); err != nil {
		t.Fatalf("gs: %v\n%s", err, msg)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data[:64], []byte("Adobe")) {
		t.Fatal("Ghostscript wrote no Adobe marker: the test would not check the inversion")
	}
	return data
}

// TestCMYKJPEGPassesThrough: a CMYK JPEG is embedded as its own bytes, in
// DeviceCMYK, and its plates carry the amounts it was made with: the
// Adobe inversion is undone, not printed as a negative.
func TestCMYKJPEGPassesThrough(t *testing.T) {
	jpg := cmykJPEG(t)
	r := New(images{"https://example.com/halves.jpg": {Data: jpg, Format: "jpeg"}}, NewFonts(nil))
	doc := `{"width": 40, "height": 40, "layers": [{"type": "image", "src": "https://example.com/halves.jpg", "width": 40, "height": 40}]}`
	path, pdf := renderFile(t, r, doc, Settings{})
	if !bytes.Contains(pdf, jpg) {
		t.Error("the CMYK JPEG was not embedded as its own bytes")
	}
	pdfxtest.Objects(t, pdf, iccprofile.FOGRA39)
	if images := pdfxtest.Tools(t, path, 1); len(images) != 1 || images[0].Colour != "cmyk" {
		t.Errorf("pdfimages lists %+v, want one cmyk image", images)
	}
	plates := pdfxtest.Separate(t, path, 1, 72)
	for _, half := range []struct {
		x    float64
		want [4]float64
	}{{10, [4]float64{0, 1, 1, 0}}, {30, [4]float64{0.5, 0, 0, 0.2}}} {
		for i, ink := range []string{"Cyan", "Magenta", "Yellow", "Black"} {
			if got := plates.Ink(ink, half.x, 20); math.Abs(got-half.want[i]) > 0.03 {
				t.Errorf("%s at x %v: %.2f, want %.2f", ink, half.x, got, half.want[i])
			}
		}
	}
}

// TestSheetMarksOnEveryPlate imposes the sticker (process, Gold and White
// spots, a cut line) on a sheet with crop marks and a slug line: the
// marks and the slug print on every plate, spot and cut plates included,
// so each can be registered and trimmed; and pure black text and
// hairlines of a design (sRGB #000000) print on the black plate alone.
func TestSheetMarksOnEveryPlate(t *testing.T) {
	blackDoc := `{"width": 60, "height": 60, "layers": [
		{"type": "text", "text": "■", "font": "Go-Regular", "size": 72, "x": 10, "y": 5, "color": "#000000"},
		{"type": "rect", "x": 5, "y": 45, "width": 50, "height": 10, "stroke": "#000000", "stroke_width": 0.3},
		{"type": "rect", "x": 40, "y": 5, "width": 15, "height": 15, "fill": "#000000"}
	]}`
	sticker, err := designdoc.Parse([]byte(stickerDoc))
	if err != nil {
		t.Fatal(err)
	}
	black, err := designdoc.Parse([]byte(blackDoc))
	if err != nil {
		t.Fatal(err)
	}
	sheet := Sheet{
		Placements: []Placement{{Doc: sticker, X: 10, Y: 10, Width: 60, Height: 60}, {Doc: black, X: 80, Y: 10, Width: 60, Height: 60}},
		Marks:      [][4]float64{{0, 10, 6, 10}, {10, 0, 10, 6}},
		Texts:      []SheetText{{X: 10, Y: 78, Size: 24, Text: "■ slug"}},
	}
	pdf, err := stickerRenderer(t).Sheets(context.Background(), Settings{CutSpot: "Kiss-cut"}, 150, 80, []Sheet{sheet})
	if err != nil {
		t.Fatal(err)
	}
	pdfxtest.Objects(t, pdf, iccprofile.FOGRA39)
	path := filepath.Join(t.TempDir(), "sheet.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	plates := pdfxtest.Separate(t, path, 1, 300)
	every := []string{"Cyan", "Magenta", "Yellow", "Black", "Gold", "White", "Kiss-cut"}
	for _, plate := range every {
		if !plates.InkNear(plate, 3, 10, 0.3) || !plates.InkNear(plate, 10, 3, 0.3) {
			t.Errorf("the crop marks are not on the %s plate", plate)
		}
		// The slug's square glyph: 24 pt is 8.5 mm, its middle a little
		// above the baseline.
		if !plates.InkNear(plate, 10+0.35*8.47, 78-2.5, 1) {
			t.Errorf("the slug line is not on the %s plate", plate)
		}
	}
	// The black design's text and hairline, then its black area.
	x, y := 80+10+0.35*25.4, 10+5+0.55*25.4
	for what, at := range map[string][2]float64{"text": {x, y}, "hairline": {80 + 30, 10 + 45}} {
		if k := plates.Ink("Black", at[0], at[1]); !pdfxtest.Near(k, 1) && !plates.InkNear("Black", at[0], at[1], 0.1) {
			t.Errorf("#000000 %s: black %.2f, want 1", what, k)
		}
		for _, other := range []string{"Cyan", "Magenta", "Yellow"} {
			if plates.InkNear(other, at[0], at[1], 0.1) {
				t.Errorf("#000000 %s puts %s: it must print in black ink alone", what, other)
			}
		}
	}
	if c := plates.Ink("Cyan", 80+47, 10+12); c < 0.5 {
		t.Errorf("a #000000 area: cyan %.2f; an area stays sRGB black, separated rich", c)
	}
}
