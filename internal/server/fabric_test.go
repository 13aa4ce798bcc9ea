package server_test

// Fabric canvases as design documents, end to end: a canvas as fabric.js's
// canvas.toJSON() saves it, sent as a Family A item's template_config and
// as a design version a Family B shop order names, renders to a print
// file whose pages are the bleed box and whose pixels are where fabric
// draws them; a batch lays such prints out on its sheets; and what fabric
// draws that Platen does not print is a 400 naming the object's path and
// the property, with nothing written.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"maps"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/pdfxtest"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/poppler"
)

// The fabric document of these tests: 100 × 70 mm with 2 mm of bleed,
// drawn on a canvas of 800 × 560 px, so a canvas pixel is 0.125 mm and the
// pages are 104 × 74 mm.
const (
	fabricTrimW, fabricTrimH, fabricBleed = 100.0, 70.0, 2.0
	fabricCanvasW, fabricCanvasH          = 800.0, 560.0
	fabricBackground                      = "#f0e0a0"
)

// fabricObject is an object of type typ with every member fabric 7's
// toObject writes, at its default (placed from its top-left corner, as a
// canvas saved with originX and originY "left" and "top" has them), with
// fields over them.
func fabricObject(typ string, fields map[string]any) map[string]any {
	o := map[string]any{
		"type": typ, "version": "7.4.0", "originX": "left", "originY": "top", "left": 0, "top": 0, "width": 0, "height": 0,
		"fill": "rgb(0,0,0)", "stroke": nil, "strokeWidth": 1, "strokeDashArray": nil, "strokeLineCap": "butt",
		"strokeDashOffset": 0, "strokeLineJoin": "miter", "strokeUniform": false, "strokeMiterLimit": 4,
		"scaleX": 1, "scaleY": 1, "angle": 0, "flipX": false, "flipY": false, "opacity": 1, "shadow": nil,
		"visible": true, "backgroundColor": "", "fillRule": "nonzero", "paintFirst": "fill",
		"globalCompositeOperation": "source-over", "skewX": 0, "skewY": 0,
	}
	maps.Copy(o, fields)
	return o
}

// greenPNG is a 4 × 4 px PNG all #00c000, as a data: URL.
func greenPNG(t *testing.T) string {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 4, 4))
	for y := range 4 {
		for x := range 4 {
			img.SetNRGBA(x, y, color.NRGBA{G: 0xc0, A: 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
}

// fabricCanvas is the test's canvas as toJSON saves it, over a background
// of fabricBackground:
//   - a red rect, (40, 40) to (240, 160) px;
//   - a blue circle of radius 60 px centred on (400, 100);
//   - "Platen" in a bold Go-Regular textbox at (40, 400), 300 px wide;
//   - the green PNG scaled 25 times, (600, 380) to (700, 480);
//   - a group, (200, 250) to (400, 350), of one magenta rect filling it,
//     clipped to a circle of radius 40 px about the group's centre
//     (300, 300).
func fabricCanvas(t *testing.T) map[string]any {
	t.Helper()
	return map[string]any{
		"version":    "7.4.0",
		"background": fabricBackground,
		"objects": []any{
			fabricObject("Rect", map[string]any{"left": 40, "top": 40, "width": 200, "height": 120, "fill": "#ff0000",
				"strokeWidth": 0, "rx": 0, "ry": 0}),
			fabricObject("Circle", map[string]any{"originX": "center", "originY": "center", "left": 400, "top": 100,
				"width": 120, "height": 120, "radius": 60, "startAngle": 0, "endAngle": 360, "fill": "#0000ff", "strokeWidth": 0}),
			fabricObject("Textbox", map[string]any{"left": 40, "top": 400, "width": 300, "height": 45.2, "fill": "#000000",
				"text": "Platen", "fontSize": 40, "fontWeight": "bold", "fontFamily": "Go-Regular", "fontStyle": "normal",
				"lineHeight": 1.16, "underline": false, "overline": false, "linethrough": false, "textAlign": "left",
				"textBackgroundColor": "", "charSpacing": 0, "styles": []any{}, "direction": "ltr", "path": nil,
				"pathStartOffset": 0, "pathSide": "left", "pathAlign": "baseline", "minWidth": 20, "splitByGrapheme": false}),
			fabricObject("Image", map[string]any{"left": 600, "top": 380, "width": 4, "height": 4, "scaleX": 25, "scaleY": 25,
				"fill": "rgb(0,0,0)", "strokeWidth": 0, "cropX": 0, "cropY": 0, "src": greenPNG(t), "crossOrigin": nil, "filters": []any{}}),
			fabricObject("Group", map[string]any{"left": 200, "top": 250, "width": 200, "height": 100, "strokeWidth": 0,
				"subTargetCheck": false, "interactive": false,
				"layoutManager": map[string]any{"type": "layoutManager", "strategy": "fit-content"},
				"clipPath": fabricObject("Circle", map[string]any{"originX": "center", "originY": "center", "left": 0, "top": 0,
					"width": 80, "height": 80, "radius": 40, "strokeWidth": 0, "inverted": false, "absolutePositioned": false}),
				"objects": []any{
					fabricObject("Rect", map[string]any{"left": -100, "top": -50, "width": 200, "height": 100, "fill": "#ff00ff", "strokeWidth": 0}),
				}}),
		},
	}
}

// fabricDocument is the fabric document of canvas (a map, or a list of
// surfaces' names and canvases when surfaces is set).
func fabricDocument(canvas map[string]any) map[string]any {
	return map[string]any{"format": "fabric", "width": fabricTrimW, "height": fabricTrimH, "bleed": fabricBleed, "unit": "mm", "dpi": 300,
		"canvas": map[string]any{"width": fabricCanvasW, "height": fabricCanvasH}, "fabric": canvas}
}

// fabricSurfaces is a fabric document of one surface per canvas, named
// front, back, ….
func fabricSurfaces(canvases ...map[string]any) map[string]any {
	names := []string{"front", "back"}
	var surfaces []any
	for i, c := range canvases {
		surfaces = append(surfaces, map[string]any{"name": names[i], "canvas": map[string]any{"width": fabricCanvasW, "height": fabricCanvasH}, "fabric": c})
	}
	return map[string]any{"format": "fabric", "width": fabricTrimW, "height": fabricTrimH, "bleed": fabricBleed, "unit": "mm", "dpi": 300,
		"surfaces": surfaces}
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// pagePoint is a canvas pixel's place on the page, in mm from its
// top-left corner (the bleed box's).
func pagePoint(x, y float64) (float64, float64) {
	k := fabricTrimW / fabricCanvasW
	return fabricBleed + x*k, fabricBleed + y*k
}

// savePDF writes a downloaded file where poppler can read it.
func savePDF(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "print.pdf")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

var wordBox = regexp.MustCompile(`<word xMin="([0-9.]+)" yMin="([0-9.]+)" xMax="([0-9.]+)" yMax="([0-9.]+)">Platen</word>`)

var pageSize = regexp.MustCompile(`^([0-9.]+) x ([0-9.]+) pts`)

// checkPages checks that the PDF has pages pages, each the bleed box of
// the fabric document (104 × 74 mm) with its trim box 2 mm inside.
func checkPages(t *testing.T, data []byte, pages int) {
	t.Helper()
	info := platentest.PDFInfo(t, data)
	if got := platentest.PDFField(info, "Pages"); got != strconv.Itoa(pages) {
		t.Errorf("%s pages, want %d:\n%s", got, pages, info)
	}
	mm := func(pt string) float64 {
		v, err := strconv.ParseFloat(pt, 64)
		if err != nil {
			t.Fatalf("a size in pdfinfo: %q", pt)
		}
		return v * 25.4 / 72
	}
	m := pageSize.FindStringSubmatch(platentest.PDFField(info, "Page size"))
	if m == nil {
		t.Fatalf("no page size in pdfinfo:\n%s", info)
	}
	w, h := fabricTrimW+2*fabricBleed, fabricTrimH+2*fabricBleed
	if gw, gh := mm(m[1]), mm(m[2]); math.Abs(gw-w) > 0.1 || math.Abs(gh-h) > 0.1 {
		t.Errorf("page %.2f × %.2f mm, want the bleed box, %v × %v mm", gw, gh, w, h)
	}
	box := strings.Fields(platentest.PDFField(info, "TrimBox"))
	want := []float64{fabricBleed, fabricBleed, fabricBleed + fabricTrimW, fabricBleed + fabricTrimH}
	if len(box) != 4 {
		t.Fatalf("TrimBox %q", box)
	}
	for i, v := range box {
		if math.Abs(mm(v)-want[i]) > 0.1 {
			t.Errorf("TrimBox %v mm, want %v", box, want)
			break
		}
	}
}

// near reports whether two colours differ by at most 12 in each channel:
// an image's pixels pass through their own colour conversion.
func near(a, b color.RGBA) bool {
	d := func(x, y uint8) bool { return math.Abs(float64(x)-float64(y)) <= 12 }
	return d(a.R, b.R) && d(a.G, b.G) && d(a.B, b.B)
}

// checkCanvasPixels checks the colours of page of the PDF at path where
// fabricCanvas draws what it draws, as pdftoppm shows them through the
// file's output intent (pdfxtest.Proof).
func checkCanvasPixels(t *testing.T, path string, page int) {
	t.Helper()
	proof := func(hex string) color.RGBA {
		v, err := strconv.ParseUint(hex[1:], 16, 32)
		if err != nil {
			t.Fatal(err)
		}
		return pdfxtest.Proof(t, color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255})
	}
	background := proof(fabricBackground)
	for _, c := range []struct {
		what string
		x, y float64 // canvas px; negative for the bleed beyond the canvas
		want color.RGBA
	}{
		{"the middle of the red rect", 140, 100, proof("#ff0000")},
		{"the blue circle's centre", 400, 100, proof("#0000ff")},
		{"inside the circle, off its centre", 400 + 40, 100 + 20, proof("#0000ff")},
		{"the circle's bounding box's corner, outside the circle", 400 - 55, 100 - 55, background},
		{"the middle of the image", 650, 430, proof("#00c000")},
		{"the group's centre, inside its clip", 300, 300, proof("#ff00ff")},
		{"the group's rect outside its clip path", 215, 265, background},
		{"the group's rect, the clip's edge's outside", 300 + 45, 300, background},
		{"a point outside everything", 750, 30, background},
		{"the bleed beyond the canvas", -8, -8, background},
	} {
		x, y := pagePoint(c.x, c.y)
		if got := poppler.Pixel(t, path, page, 150, x, y); !near(got, c.want) {
			t.Errorf("page %d, %s (%.2f, %.2f mm): %v, want %v", page, c.what, x, y, got, c.want)
		}
	}
}

// checkCanvasText checks that the textbox's word is set in Go Bold, the
// face a bold Go-Regular is, embedded.
func checkCanvasText(t *testing.T, path string) {
	t.Helper()
	// The textbox's left edge is at 40 px (7 mm on the page), its top at
	// 400 px (52 mm); its one line is 1.13 times 40 px high (5.65 mm).
	words := poppler.Run(t, "pdftotext", "-bbox", path, "-")
	m := wordBox.FindStringSubmatch(words)
	if m == nil {
		t.Fatalf("pdftotext -bbox: no word Platen:\n%s", words)
	}
	var box [4]float64
	for i := range box {
		v, err := strconv.ParseFloat(m[i+1], 64)
		if err != nil {
			t.Fatal(err)
		}
		box[i] = v * 25.4 / 72
	}
	left, top := pagePoint(40, 400)
	if mid := (box[1] + box[3]) / 2; box[0] < left || box[0] > left+0.6 || mid < top || mid > top+5.65 {
		t.Errorf("the word Platen is set in %.2f, %.2f to %.2f, %.2f mm; want it from %.2f mm across, in %.2f to %.2f mm down",
			box[0], box[1], box[2], box[3], left, top, top+5.65)
	}
	if fonts := poppler.Run(t, "pdffonts", path); !regexp.MustCompile(`(?m)^[A-Z]{6}\+Go-Bold\s.*\byes\s+yes\s+yes\s`).MatchString(fonts) {
		t.Errorf("pdffonts: want GoBold embedded as a subset:\n%s", fonts)
	}
}

// TestFabricOrderPrints: a Family A order whose items' template_configs
// are the fabric canvas, one as raw JSON and one URL-encoded, is created,
// both prints reach ready, and each PDF is a page of the bleed box with
// the canvas's objects where fabric draws them; a two-surface fabric
// document prints two such pages.
func TestFabricOrderPrints(t *testing.T) {
	poppler.Need(t, "pdfinfo", "pdftoppm", "pdftotext", "pdffonts")
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		doc := jsonText(t, fabricDocument(fabricCanvas(t)))
		back := fabricCanvas(t)
		back["objects"] = back["objects"].([]any)[:1]
		twoSided := jsonText(t, fabricSurfaces(fabricCanvas(t), back))
		raw := platentest.OrderItem("f-raw", doc)
		raw["template_config"] = doc
		r := srv.Do(t, "POST", "/api/v1/orders", acme.Token, platentest.OrderBody(acme.StoreID, "f", platentest.PrintFiles(),
			platentest.Items(raw, platentest.OrderItem("f-encoded", doc), platentest.OrderItem("f-two", twoSided))))
		if r.Status != http.StatusOK {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		items := r.Object(t)["items"].([]any)
		if got := items[0].(map[string]any)["template_config"]; got != doc {
			t.Errorf("the raw JSON template_config is stored as %v, want it as sent", got)
		}
		if got, want := items[1].(map[string]any)["template_config"], url.QueryEscape(doc); got != want {
			t.Errorf("the URL-encoded template_config is stored as %v, want it as sent", got)
		}
		for _, id := range []string{"f-raw", "f-encoded"} {
			t.Run(id, func(t *testing.T) {
				st := srv.WaitPrint(t, acme.Token, id, platentest.PrintReady)
				_, data := platentest.Download(t, st["url"].(string))
				platentest.CheckFileDigest(t, id, st, data)
				checkPages(t, data, 1)
				path := savePDF(t, data)
				checkCanvasPixels(t, path, 1)
				checkCanvasText(t, path)
			})
		}
		t.Run("two surfaces", func(t *testing.T) {
			st := srv.WaitPrint(t, acme.Token, "f-two", platentest.PrintReady)
			_, data := platentest.Download(t, st["url"].(string))
			checkPages(t, data, 2)
			path := savePDF(t, data)
			checkCanvasPixels(t, path, 1)
			// The back has the red rect alone.
			bg := pdfxtest.Proof(t, color.RGBA{R: 0xf0, G: 0xe0, B: 0xa0, A: 255})
			for _, p := range []struct {
				x, y float64
				want color.RGBA
			}{{140, 100, pdfxtest.Proof(t, color.RGBA{R: 255, A: 255})}, {400, 100, bg}, {300, 300, bg}} {
				x, y := pagePoint(p.x, p.y)
				if got := poppler.Pixel(t, path, 2, 150, x, y); !near(got, p.want) {
					t.Errorf("the back at (%v, %v) px: %v, want %v", p.x, p.y, got, p.want)
				}
			}
		})
	})
}
