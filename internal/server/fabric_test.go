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

// TestFabricShopOrderPrints: a design version whose template_config is
// the fabric canvas, and a Family B shop order of two copies naming it:
// its print reaches ready with one file, the canvas's one surface, a page
// of the bleed box with the canvas's objects where fabric draws them.
func TestFabricShopOrderPrints(t *testing.T) {
	poppler.Need(t, "pdfinfo", "pdftoppm", "pdftotext", "pdffonts")
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		config := url.QueryEscape(jsonText(t, fabricDocument(fabricCanvas(t))))
		r := srv.Do(t, "POST", "/api/v1/design-versions", acme.Token, map[string]any{"design_version_id": "fabric-card-v1",
			"template_config": config, "thumbnails": []string{"https://example.com/t.png"}})
		if r.Status != http.StatusOK {
			t.Fatalf("design version: %d %s", r.Status, r.Raw)
		}
		if got := r.Object(t)["template_config"]; got != config {
			t.Errorf("the design version's template_config is stored as %v, want it as sent", got)
		}
		r = srv.Do(t, "POST", "/v1/shop/orders", acme.Token, map[string]any{"external_id": "SO-F1",
			"lines": []map[string]any{{"design_version_id": "fabric-card-v1", "quantity": 2}}})
		if r.Status != http.StatusCreated {
			t.Fatalf("shop order: %d %s", r.Status, r.Raw)
		}
		ref := r.Object(t)["data"].(map[string]any)["reference_number"].(string)
		order := srv.WaitShopOrder(t, acme.Token, ref)
		lines := order["lines"].([]any)
		if len(lines) != 1 {
			t.Fatalf("lines %v", lines)
		}
		prints := lines[0].(map[string]any)["prints"].([]any)
		if len(prints) != 1 {
			t.Fatalf("prints %v", prints)
		}
		p := prints[0].(map[string]any)
		files, _ := p["files"].([]any)
		if p["status"] != "ready" || len(files) != 1 {
			t.Fatalf("the print %v, want it ready with one file", p)
		}
		file := files[0].(map[string]any)
		if file["index"] != 1.0 || file["copies"] != 2.0 || file["type"] != "single_file" {
			t.Errorf("the file %v", file)
		}
		_, data := platentest.Download(t, file["url"].(string))
		platentest.CheckFileDigest(t, "the shop print's file", file, data)
		checkPages(t, data, 1)
		path := savePDF(t, data)
		checkCanvasPixels(t, path, 1)
		checkCanvasText(t, path)
	})
}

// TestFabricBatch: Family A items of the fabric canvas, three copies,
// batched by a team token onto a template of 2 × 2 slots of the canvas's
// trim: the batch is Ready with one sheet, and its slots hold the canvas,
// each drawn as fabric draws it.
func TestFabricBatch(t *testing.T) {
	poppler.Need(t, "pdfinfo", "pdftoppm")
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		team := srv.TeamToken(t, acme.TeamID)
		staff := srv.Staff(t, "grace@example.com").Token

		cat := srv.Do(t, "POST", "/api/v1/product-categories", team, map[string]any{"name": "Cards"})
		prod := srv.Do(t, "POST", "/api/v1/products", team, map[string]any{"category_id": cat.Object(t)["id"], "name": "Card",
			"order_column": 1, "active": true, "team_id": acme.TeamID})
		v := srv.Do(t, "POST", "/api/v1/product-variants", team, map[string]any{"name": "fabric-card", "product_id": prod.Object(t)["id"],
			"country_id": 276, "ecommerce_variant_ids": []string{"fabric-card"}})
		if v.Status != http.StatusOK {
			t.Fatalf("variant: %d %s", v.Status, v.Raw)
		}
		// A 220 × 160 mm sheet: 5 mm margins, slots of the trim, 6 mm apart,
		// their 2 mm of bleed kept.
		tmpl := srv.Do(t, "POST", "/api/v1/operator/print-templates", staff, map[string]any{
			"team_id": acme.TeamID, "name": "Fabric cards, 4 up", "sheet_width_mm": 220, "sheet_height_mm": 160,
			"margin_top_mm": 5, "margin_right_mm": 5, "margin_bottom_mm": 5, "margin_left_mm": 5, "gap_mm": 6, "slot_bleed_mm": 2,
			"grid":       map[string]any{"columns": 2, "rows": 2, "slot_width_mm": fabricTrimW, "slot_height_mm": fabricTrimH},
			"crop_marks": true, "variant_ids": []any{v.Object(t)["id"]},
		})
		if tmpl.Status != http.StatusOK {
			t.Fatalf("template: %d %s", tmpl.Status, tmpl.Raw)
		}
		doc := jsonText(t, fabricDocument(fabricCanvas(t)))
		first, second := platentest.OrderItem("b-1", doc), platentest.OrderItem("b-2", doc)
		first["ecommerce_variant_id"], second["ecommerce_variant_id"] = "fabric-card", "fabric-card"
		first["quantity"] = 2
		second["template_config"] = doc // raw JSON, as a customiser may send it
		r := srv.Do(t, "POST", "/api/v1/orders", acme.Token, platentest.OrderBody(acme.StoreID, "b", platentest.Items(first, second)))
		if r.Status != http.StatusOK {
			t.Fatalf("order: %d %s", r.Status, r.Raw)
		}
		var uids []string
		for _, it := range r.Object(t)["items"].([]any) {
			uids = append(uids, it.(map[string]any)["uid"].(string))
		}

		r = srv.Do(t, "POST", "/api/v1/batch-orders", team, map[string]any{"order_items": uids, "print_templates": []string{tmpl.Object(t)["uid"].(string)}})
		if r.Status != http.StatusOK {
			t.Fatalf("batch: %d %s", r.Status, r.Raw)
		}
		uid := r.Object(t)["uid"].(string)
		var batch map[string]any
		srv.WaitFor(t, platentest.PrintTimeout, "batch "+uid+" done", func() bool {
			r := srv.Do(t, "GET", "/api/v1/batch-orders/"+uid, team, nil)
			if r.Status != http.StatusOK {
				t.Fatalf("GET batch: %d %s", r.Status, r.Raw)
			}
			batch = r.Object(t)
			return batch["status"] != "Batching"
		})
		files, _ := batch["files"].([]any)
		if batch["status"] != "Ready" || batch["error"] != nil || len(files) != 1 || files[0].(map[string]any)["pages"] != 1.0 {
			t.Fatalf("the batch %v, want it Ready with one file of one sheet", batch)
		}
		file := files[0].(map[string]any)
		_, data := platentest.Download(t, file["url"].(string))
		platentest.CheckFileDigest(t, "the batch's file", file, data)
		info := platentest.PDFInfo(t, data)
		if got, want := platentest.PDFField(info, "Page size"), "623.622 x 453.543 pts"; got != want {
			t.Errorf("the sheet is %s, want %s (220 × 160 mm)", got, want)
		}
		path := savePDF(t, data)
		// Slot i's trim starts at (5 + 106·(i%2), 5 + 76·(i/2)) mm; three
		// copies fill slots 0 to 2, and slot 3 is empty paper.
		red := pdfxtest.Proof(t, color.RGBA{R: 255, A: 255})
		magenta := pdfxtest.Proof(t, color.RGBA{R: 255, B: 255, A: 255})
		background := pdfxtest.Proof(t, color.RGBA{R: 0xf0, G: 0xe0, B: 0xa0, A: 255})
		white := pdfxtest.Proof(t, color.RGBA{R: 255, G: 255, B: 255, A: 255})
		k := fabricTrimW / fabricCanvasW
		for slot := range 4 {
			x0, y0 := 5+106*float64(slot%2), 5+76*float64(slot/2)
			for _, p := range []struct {
				what string
				x, y float64
				want color.RGBA
			}{
				{"the red rect", 140, 100, red},
				{"the group inside its clip", 300, 300, magenta},
				{"the group's rect outside its clip", 215, 265, background},
				{"outside everything", 750, 30, background},
			} {
				want := p.want
				if slot == 3 {
					want = white
				}
				if got := poppler.Pixel(t, path, 1, 150, x0+p.x*k, y0+p.y*k); !near(got, want) {
					t.Errorf("slot %d, %s: %v, want %v", slot+1, p.what, got, want)
				}
			}
		}
	})
}

// fabricRefusal is a fabric document Platen refuses: what breaks it, the
// path of the member it names under the template_config, and the message.
type fabricRefusal struct {
	name        string
	doc         map[string]any
	field, want string
}

// fabricRefusals are the canvases whose objects fabric would draw and
// Platen cannot print, each refused naming the object and the property.
func fabricRefusals(t *testing.T) []fabricRefusal {
	t.Helper()
	// with is the test's canvas with object i (from fabricCanvas) changed
	// by fields; with i = len(objects), an object added.
	with := func(i int, typ string, fields map[string]any) map[string]any {
		c := fabricCanvas(t)
		objects := c["objects"].([]any)
		if i == len(objects) {
			c["objects"] = append(objects, fabricObject(typ, fields))
		} else {
			maps.Copy(objects[i].(map[string]any), fields)
		}
		return fabricDocument(c)
	}
	shadow := map[string]any{"type": "shadow", "color": "rgba(0,0,0,0.3)", "blur": 5, "offsetX": 3, "offsetY": 3,
		"affectStroke": false, "nonScaling": false}
	pattern := map[string]any{"type": "pattern", "source": "data:image/png;base64,iVBORw0KGgo=", "repeat": "repeat",
		"offsetX": 0, "offsetY": 0, "crossOrigin": nil, "patternTransform": nil}
	onPath := fabricObject("Path", map[string]any{"path": []any{[]any{"M", 0, 0}, []any{"Q", 100, -60, 200, 0}},
		"width": 200, "height": 30, "fill": "", "stroke": "#000000"})
	squat := fabricDocument(fabricCanvas(t))
	squat["canvas"] = map[string]any{"width": 800, "height": 600}
	old := fabricCanvas(t)
	old["version"] = "4.6.0"
	nested := fabricCanvas(t)
	nested["objects"].([]any)[4].(map[string]any)["objects"].([]any)[0].(map[string]any)["shadow"] = shadow
	return []fabricRefusal{
		{"an unknown object type", with(5, "star", map[string]any{"width": 10, "height": 10}),
			"fabric.objects[5].type", `is not a fabric object Platen prints: "star" (it prints rect, circle, ellipse, line, triangle, polygon, polyline, path, text, i-text, textbox, image and group)`},
		{"a shadow", with(0, "", map[string]any{"shadow": shadow}),
			"fabric.objects[0].shadow", `is set: shadows are not printed: a print file's shadow would be a raster of its own; draw it as a shape or into the image`},
		{"a shadow in a group", fabricDocument(nested),
			"fabric.objects[4].objects[0].shadow", `is set: shadows are not printed: a print file's shadow would be a raster of its own; draw it as a shape or into the image`},
		{"a pattern fill", with(1, "", map[string]any{"fill": pattern}),
			"fabric.objects[1].fill", "is a pattern: Platen prints fills of one colour or a gradient; put the picture in an image clipped to the shape"},
		{"a Blur filter", with(3, "", map[string]any{"filters": []any{map[string]any{"type": "Grayscale", "mode": "average"}, map[string]any{"type": "Blur", "blur": 0.2}}}),
			"fabric.objects[3].filters[1].type", `is a filter Platen does not print: "Blur" (it prints Grayscale; apply the others to the image itself)`},
		{"a blend mode", with(0, "", map[string]any{"globalCompositeOperation": "multiply"}),
			"fabric.objects[0].globalCompositeOperation", `is "multiply": blend modes are not printed: only source-over, fabric's default`},
		{"justified text", with(2, "", map[string]any{"textAlign": "justify"}),
			"fabric.objects[2].textAlign", `must be left, center or right, got "justify": Platen does not justify text`},
		{"text on a path", with(2, "", map[string]any{"path": onPath}),
			"fabric.objects[2].path", "sets the text along a path, which Platen does not print: convert the text to a path in the customiser"},
		{"a canvas of other proportions than the trim's", squat,
			"canvas.height", "must give the canvas the trim's proportions (100 × 70 mm): 560 px for a width of 800 px, got 600"},
		{"fabric 4", fabricDocument(old),
			"fabric.version", `must be a fabric.js version from 5 to 7 (as canvas.toJSON() writes it, "7.4.0"), got "4.6.0"`},
	}
}

// violations are the field violations of a 400's BadRequest detail, by
// field.
func violations(t *testing.T, r *platentest.Response) map[string]string {
	t.Helper()
	platentest.ErrorBody(t, r, http.StatusBadRequest)
	out := map[string]string{}
	for _, d := range r.Object(t)["details"].([]any) {
		vs, _ := d.(map[string]any)["field_violations"].([]any)
		for _, v := range vs {
			v := v.(map[string]any)
			out[v["field"].(string)], _ = v["description"].(string)
		}
	}
	return out
}

// TestFabricRefusals: each canvas of fabricRefusals, as a Family A
// item's template_config (URL-encoded and raw) and as a design version's,
// is a 400 whose one violation names the member and says why; the
// refused order's item and the refused version are not found afterwards.
func TestFabricRefusals(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		for i, c := range fabricRefusals(t) {
			t.Run(c.name, func(t *testing.T) {
				doc := jsonText(t, c.doc)
				for _, encoded := range []bool{true, false} {
					config := doc
					if encoded {
						config = url.QueryEscape(doc)
					}
					orderID := "r" + strconv.Itoa(i) + map[bool]string{true: "e", false: "j"}[encoded]
					item := platentest.OrderItem(orderID+"-1", doc)
					item["template_config"] = config
					r := srv.Do(t, "POST", "/api/v1/orders", acme.Token, platentest.OrderBody(acme.StoreID, orderID, platentest.PrintFiles(), platentest.Items(item)))
					want := map[string]string{"items[0].template_config." + c.field: c.want}
					if got := violations(t, r); !sameStrings(got, want) {
						t.Errorf("order (URL-encoded %v): violations %q, want %q", encoded, got, want)
					}
					if msg, _ := r.Object(t)["message"].(string); !strings.Contains(msg, c.want) {
						t.Errorf("order (URL-encoded %v): message %q does not say %q", encoded, msg, c.want)
					}
					platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/order-items/"+orderID+"-1/print", acme.Token, nil), http.StatusNotFound)

					id := "dv-" + orderID
					r = srv.Do(t, "POST", "/api/v1/design-versions", acme.Token, map[string]any{"design_version_id": id, "template_config": config})
					if got, want := violations(t, r), map[string]string{"template_config." + c.field: c.want}; !sameStrings(got, want) {
						t.Errorf("design version (URL-encoded %v): violations %q, want %q", encoded, got, want)
					}
					platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/design-versions/"+id, acme.Token, nil), http.StatusNotFound)
				}
			})
		}
		// Nothing of the refused requests was written.
		if orders := srv.Do(t, "GET", "/api/v1/orders", acme.Token, nil).Object(t)["orders"].([]any); len(orders) != 0 {
			t.Errorf("refused orders were written: %v", orders)
		}
		if versions := srv.Do(t, "GET", "/api/v1/design-versions", acme.Token, nil).Object(t)["design_versions"].([]any); len(versions) != 0 {
			t.Errorf("refused design versions were written: %v", versions)
		}
	})
}

func sameStrings(a, b map[string]string) bool { return maps.Equal(a, b) }

// fabricPoint is a colour a canvas's page has at a canvas pixel.
type fabricPoint struct {
	what string
	x, y float64
	want color.RGBA
}

// printFabric orders one item of doc with its print file at once, waits
// for the print to be ready and returns the PDF's path.
func printFabric(t *testing.T, srv *platentest.Server, tenant platentest.Tenant, id, doc string) string {
	t.Helper()
	r := srv.Do(t, "POST", "/api/v1/orders", tenant.Token, platentest.OrderBody(tenant.StoreID, id, platentest.PrintFiles(),
		platentest.Items(platentest.OrderItem(id+"-1", doc))))
	if r.Status != http.StatusOK {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	st := srv.WaitPrint(t, tenant.Token, id+"-1", platentest.PrintReady)
	_, data := platentest.Download(t, st["url"].(string))
	return savePDF(t, data)
}

// checkPoints checks the colours of page of the PDF at path at canvas
// pixels of the fabric document.
func checkPoints(t *testing.T, path string, page int, points []fabricPoint) {
	t.Helper()
	for _, p := range points {
		x, y := pagePoint(p.x, p.y)
		if got := poppler.Pixel(t, path, page, 150, x, y); !near(got, p.want) {
			t.Errorf("page %d, %s, (%v, %v) px: %v, want %v", page, p.what, p.x, p.y, got, p.want)
		}
	}
}

// twoColourPNG is a 2 × 1 px PNG, its left pixel red and its right blue,
// as a data: URL.
func twoColourPNG(t *testing.T) string {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 2, 1))
	img.SetNRGBA(0, 0, color.NRGBA{R: 255, A: 255})
	img.SetNRGBA(1, 0, color.NRGBA{B: 255, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
}

// TestFabricTransforms: what fabric's own matrix, gradients, flips and
// clip paths do is printed where fabric draws it: a rect turned 90° about
// its top-left corner (its origin), a linear gradient from red at the
// rect's left to blue at its right, an image flipped, a clip path placed
// on the canvas (absolutePositioned), a group scaled twice across, an
// object saved without its origin (fabric 7's default, its centre), and a
// fabric 5 canvas, whose default origin is the top-left corner (its
// circles' angles are degrees, as since fabric 5.0).
func TestFabricTransforms(t *testing.T) {
	poppler.Need(t, "pdftoppm")
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		centred := fabricObject("Rect", map[string]any{"left": 100, "top": 450, "width": 60, "height": 40, "fill": "#00c000", "strokeWidth": 0})
		delete(centred, "originX")
		delete(centred, "originY")
		stops := []any{map[string]any{"offset": 0, "color": "#ff0000"}, map[string]any{"offset": 1, "color": "#0000ff"}}
		gradient := map[string]any{"type": "linear", "gradientUnits": "pixels", "coords": map[string]any{"x1": 0, "y1": 0, "x2": 200, "y2": 0},
			"colorStops": stops, "offsetX": 0, "offsetY": 0, "gradientTransform": nil}
		canvas := map[string]any{"version": "7.4.0", "background": fabricBackground, "objects": []any{
			fabricObject("Rect", map[string]any{"left": 300, "top": 40, "width": 100, "height": 20, "angle": 90, "fill": "#0000ff", "strokeWidth": 0}),
			fabricObject("Rect", map[string]any{"left": 450, "top": 40, "width": 200, "height": 100, "strokeWidth": 0, "fill": gradient}),
			fabricObject("Image", map[string]any{"left": 100, "top": 250, "width": 2, "height": 1, "scaleX": 50, "scaleY": 50, "flipX": true,
				"strokeWidth": 0, "cropX": 0, "cropY": 0, "src": twoColourPNG(t), "filters": []any{}}),
			fabricObject("Rect", map[string]any{"left": 300, "top": 250, "width": 200, "height": 100, "fill": "#ff00ff", "strokeWidth": 0,
				"clipPath": fabricObject("Rect", map[string]any{"left": 300, "top": 250, "width": 100, "height": 100, "strokeWidth": 0,
					"absolutePositioned": true, "inverted": false})}),
			fabricObject("Group", map[string]any{"originX": "center", "originY": "center", "left": 650, "top": 300, "width": 20, "height": 20,
				"scaleX": 2, "strokeWidth": 0, "objects": []any{
					fabricObject("Rect", map[string]any{"originX": "center", "originY": "center", "left": 10, "top": 0, "width": 20, "height": 20,
						"fill": "#00c000", "strokeWidth": 0})}}),
			centred,
		}}
		v5 := map[string]any{"version": "5.3.0", "background": fabricBackground, "objects": []any{
			map[string]any{"type": "circle", "left": 100, "top": 100, "radius": 60, "width": 120, "height": 120,
				"startAngle": 0, "endAngle": 180, "fill": "#ff0000", "strokeWidth": 0},
		}}
		path := printFabric(t, srv, acme, "t", jsonText(t, fabricSurfaces(canvas, v5)))
		red, blue := pdfxtest.Proof(t, color.RGBA{R: 255, A: 255}), pdfxtest.Proof(t, color.RGBA{B: 255, A: 255})
		green, magenta := pdfxtest.Proof(t, color.RGBA{G: 0xc0, A: 255}), pdfxtest.Proof(t, color.RGBA{R: 255, B: 255, A: 255})
		bg := pdfxtest.Proof(t, color.RGBA{R: 0xf0, G: 0xe0, B: 0xa0, A: 255})
		checkPoints(t, path, 1, []fabricPoint{
			{"the turned rect, below its corner", 290, 90, blue},
			{"where the rect would be unturned", 350, 50, bg},
			{"the gradient's start", 452, 90, red},
			{"the gradient's end", 648, 90, blue},
			{"the flipped image's left (its right pixel)", 125, 275, blue},
			{"the flipped image's right (its left pixel)", 175, 275, red},
			{"inside the canvas's clip rect", 350, 300, magenta},
			{"the rect outside the canvas's clip rect", 450, 300, bg},
			{"the scaled group's rect", 680, 300, green},
			{"left of the scaled group's rect", 640, 300, bg},
			{"the centred rect's left part", 75, 450, green},
			{"right of the centred rect", 135, 450, bg},
		})
		// Fabric 5: the circle's top-left corner at (100, 100), its
		// centre at (160, 160); from 0° to 180°, clockwise on the page:
		// the lower half.
		checkPoints(t, path, 2, []fabricPoint{
			{"the lower half circle", 160, 190, red},
			{"above the half circle's chord", 160, 130, bg},
		})
	})
}

// TestFabricCounterClockwiseArc: a fabric 6 or 7 circle draws its arc
// from startAngle to endAngle anticlockwise when counterClockwise is true
// (Circle._render: ctx.arc(0, 0, radius, start, end, counterClockwise)),
// so a filled circle from 0° to 180° so saved is its upper half.
func TestFabricCounterClockwiseArc(t *testing.T) {
	poppler.Need(t, "pdftoppm")
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		canvas := map[string]any{"version": "7.4.0", "background": fabricBackground, "objects": []any{
			fabricObject("Circle", map[string]any{"originX": "center", "originY": "center", "left": 100, "top": 100, "width": 120, "height": 120,
				"radius": 60, "startAngle": 0, "endAngle": 180, "counterClockwise": true, "fill": "#ff0000", "strokeWidth": 0}),
		}}
		path := printFabric(t, srv, acme, "ccw", jsonText(t, fabricDocument(canvas)))
		checkPoints(t, path, 1, []fabricPoint{
			{"the upper half, which fabric fills", 100, 60, pdfxtest.Proof(t, color.RGBA{R: 255, A: 255})},
			{"the lower half, which fabric leaves empty", 100, 140, pdfxtest.Proof(t, color.RGBA{R: 0xf0, G: 0xe0, B: 0xa0, A: 255})},
		})
	})
}

// TestFabricCanvasClipPathClipsBackground: fabric clips the whole canvas
// to its clipPath, its background colour included (StaticCanvas's
// renderCanvas draws the background, then the objects, then the clip path
// with destination-in over both), so a canvas clipped to a circle over a
// coloured background is that colour inside the circle only, and the
// paper's white outside it.
func TestFabricCanvasClipPathClipsBackground(t *testing.T) {
	poppler.Need(t, "pdftoppm")
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		canvas := map[string]any{"version": "7.4.0", "background": fabricBackground, "objects": []any{},
			"clipPath": fabricObject("Circle", map[string]any{"originX": "center", "originY": "center", "left": 400, "top": 280,
				"radius": 200, "width": 400, "height": 400, "strokeWidth": 0})}
		path := printFabric(t, srv, acme, "clip", jsonText(t, fabricDocument(canvas)))
		checkPoints(t, path, 1, []fabricPoint{
			{"the canvas's centre, inside its clip", 400, 280, pdfxtest.Proof(t, color.RGBA{R: 0xf0, G: 0xe0, B: 0xa0, A: 255})},
			{"the canvas's corner, outside its clip", 20, 20, pdfxtest.Proof(t, color.RGBA{R: 255, G: 255, B: 255, A: 255})},
		})
	})
}

// TestFabricOutlinesRenderAsAccepted: what the API accepts renders. A
// path whose points have one decimal, and a half circle a hair short of
// 180°, are accepted, and their prints are ready, filled where fabric
// fills them: their outlines, centred, have a coordinate a float's error
// from a whole number followed by one under 1 (x 2.0000000000000004, y
// 0.25), which canvas's minified ToSVG ran together ("L2.25") and the
// renderer read back as one number.
func TestFabricOutlinesRenderAsAccepted(t *testing.T) {
	poppler.Need(t, "pdftoppm")
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		red := pdfxtest.Proof(t, color.RGBA{R: 255, A: 255})
		t.Run("a path", func(t *testing.T) {
			// The triangle (0.1, 0), (4.1, 1), (0.1, 1.5), 50 times as
			// large, its top-left corner at (100, 100): (100, 100),
			// (300, 150) and (100, 175) on the canvas.
			canvas := map[string]any{"version": "7.4.0", "background": fabricBackground, "objects": []any{
				fabricObject("Path", map[string]any{"left": 100, "top": 100, "width": 4, "height": 1.5, "scaleX": 50, "scaleY": 50,
					"fill": "#ff0000", "strokeWidth": 0,
					"path": []any{[]any{"M", 0.1, 0}, []any{"L", 4.1, 1}, []any{"L", 0.1, 1.5}, []any{"Z"}}}),
			}}
			path := printFabric(t, srv, acme, "path", jsonText(t, fabricDocument(canvas)))
			checkPoints(t, path, 1, []fabricPoint{{"inside the triangle", 120, 140, red}})
		})
		t.Run("a half circle", func(t *testing.T) {
			canvas := map[string]any{"version": "5.3.0", "background": fabricBackground, "objects": []any{
				map[string]any{"type": "circle", "left": 100, "top": 100, "radius": 60, "width": 120, "height": 120,
					"startAngle": 0, "endAngle": 179.99999, "fill": "#ff0000", "strokeWidth": 0},
			}}
			path := printFabric(t, srv, acme, "arc", jsonText(t, fabricDocument(canvas)))
			checkPoints(t, path, 1, []fabricPoint{{"the lower half circle", 160, 190, red}})
		})
	})
}

// TestFabricUniformStrokeOfASkewedObject: a stroke with strokeUniform is
// drawn with the context scaled by 1 / getObjectScaling(), which for an
// object on the canvas (no group) is its own |scaleX|, |scaleY|
// (Object.getObjectScaling: "if (!this.group) return new
// Point(Math.abs(this.scaleX), Math.abs(this.scaleY))"), not the scale
// of its matrix decomposed. So a rect of scale 1 skewed 45° down
// (skewY) strokes as it would without strokeUniform: its left edge, a
// vertical line at x = 310 px (the rect is 120 × 220 px with its stroke,
// from (300, 100)), carries 20 px of stroke across, 300 to 320 px.
func TestFabricUniformStrokeOfASkewedObject(t *testing.T) {
	poppler.Need(t, "pdftoppm")
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		canvas := map[string]any{"version": "7.4.0", "background": "#ffffff", "objects": []any{
			fabricObject("Rect", map[string]any{"left": 300, "top": 100, "width": 100, "height": 100, "fill": "#ffffff",
				"stroke": "#0000ff", "strokeWidth": 20, "strokeUniform": true, "skewY": 45}),
		}}
		path := printFabric(t, srv, acme, "skew", jsonText(t, fabricDocument(canvas)))
		blue, white := pdfxtest.Proof(t, color.RGBA{B: 255, A: 255}), pdfxtest.Proof(t, color.RGBA{R: 255, G: 255, B: 255, A: 255})
		// The left edge's middle is at y = 210 - 50 = 160 px.
		checkPoints(t, path, 1, []fabricPoint{
			{"left of the stroke", 296, 160, white},
			{"the stroke's outer part", 302, 160, blue},
			{"the stroke's middle", 310, 160, blue},
			{"the stroke's inner part", 318, 160, blue},
			{"the fill", 325, 160, white},
		})
	})
}
