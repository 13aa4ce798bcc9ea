package batches_test

import (
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/pdfxtest"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/poppler"
)

// modelCard is a card that uses the design model's new types and members:
// a group with a clip and a gradient, a path with a view box in a cmyk()
// colour, a dashed line, text in spans with fallback characters, letter
// spacing and fit, and an SVG logo drawn as vectors.
const modelCard = `{"width":148,"height":105,"bleed":2,"background":"#f2e8d5","layers":[` +
	`{"type":"group","x":10,"y":10,"clip":{"shape":"ellipse","width":40,"height":40},"layers":[` +
	`{"type":"rect","width":40,"height":40,"fill":{"linear":{"stops":[[0,"#ff0000"],[1,"#0000ff"]]}}}]},` +
	`{"type":"path","x":60,"y":10,"width":30,"height":30,"view_box":[0,0,24,24],"fill":"cmyk(0,0,100,0)","d":"M12 2 L15 9 L22 9 L16 14 L18 21 L12 17 L6 21 L8 14 L2 9 L9 9 Z"},` +
	`{"type":"line","x1":100,"y1":10,"x2":140,"y2":40,"stroke":"#000000","stroke_width":1,"dash":[3,1]},` +
	`{"type":"text","size":16,"x":10,"y":60,"width":80,"fit":"shrink","max_lines":1,"letter_spacing":50,"spans":[` +
	`{"text":"Ada "},{"text":"山田","font":"Go-Bold","color":"#c03030"}]},` +
	`{"type":"image","src":"data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxMDAgNTAiPjxyZWN0IHdpZHRoPSIxMDAiIGhlaWdodD0iNTAiIGZpbGw9IiMzMDMwYzAiLz48Y2lyY2xlIGN4PSI3NSIgY3k9IjI1IiByPSIyMCIgZmlsbD0iI2MwMzAzMCIvPjwvc3ZnPg==","x":100,"y":60,"width":40,"height":20,"fit":"contain"}]}`

// modelColours are places on the card and the colour the PDF paints there.
var modelColours = []struct {
	x, y float64
	want [3]uint8
}{
	{30, 30, [3]uint8{0x80, 0x00, 0x80}},  // the gradient's middle, inside the clip
	{11, 11, [3]uint8{0xf2, 0xe8, 0xd5}},  // the clip's corner: the background
	{75, 26, [3]uint8{0xff, 0xff, 0x00}},  // the star
	{105, 70, [3]uint8{0x30, 0x30, 0xc0}}, // the logo's field
	{130, 70, [3]uint8{0xc0, 0x30, 0x30}}, // the logo's disc
}

// TestTheDesignModelEndToEnd: a card using the model's new types renders
// through Family A, Family B and a batch, on each database; its colours
// are where the document puts them, and its text is text.
func TestTheDesignModelEndToEnd(t *testing.T) {
	poppler.Need(t, "pdftotext", "pdffonts")
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		f := setup(t, b)
		// Family A.
		r := f.srv.Do(t, "POST", "/api/v1/orders", f.shop.Token, map[string]any{"store_id": f.shop.StoreID,
			"ecommerce_order_id": "A-1", "create_print_files": true, "items": []any{item("A-1-1", 1, modelCard)}})
		if r.Status != http.StatusOK {
			t.Fatalf("order: %d %s", r.Status, r.Raw)
		}
		st := f.srv.WaitPrint(t, f.shop.Token, "A-1-1", platentest.PrintReady)
		_, pdf := platentest.Download(t, st["url"].(string))
		checkModelCard(t, "Family A", pdf, 2)

		// Family B.
		dv := map[string]any{"design_version_id": "model-card", "template_config": item("", 1, modelCard)["template_config"], "thumbnails": []string{"https://example.com/t.png"}}
		if r := f.srv.Do(t, "POST", "/api/v1/design-versions", f.shop.Token, dv); r.Status != http.StatusOK {
			t.Fatalf("design version: %d %s", r.Status, r.Raw)
		}
		r = f.srv.Do(t, "POST", "/v1/shop/orders", f.shop.Token, map[string]any{"external_id": "B-1", "lines": []any{map[string]any{"design_version_id": "model-card", "quantity": 1}}})
		if r.Status != http.StatusCreated {
			t.Fatalf("shop order: %d %s", r.Status, r.Raw)
		}
		_, pdf = platentest.Download(t, waitShopFile(t, f, r.Object(t)["data"].(map[string]any)["reference_number"].(string)))
		checkModelCard(t, "Family B", pdf, 2)

		// A batch of the card.
		items := f.order(t, f.shop, "C-1", item("C-1-1", 2, modelCard))
		r = f.srv.Do(t, "POST", "/api/v1/batch-orders", f.teamToken, map[string]any{"order_items": items, "print_templates": []string{f.templateUID}})
		if r.Status != http.StatusOK {
			t.Fatalf("batch: %d %s", r.Status, r.Raw)
		}
		done := f.wait(t, f.teamToken, r.Object(t)["uid"].(string))
		if done["status"] != "Ready" {
			t.Fatalf("batch: %v", done)
		}
		_, pdf = platentest.Download(t, done["files"].([]any)[0].(map[string]any)["url"].(string))
		checkText(t, "the batch's sheet", pdf)
	})
}

// checkModelCard checks the card's colours (the trim's origin bleed mm
// into the page) and its text.
func checkModelCard(t *testing.T, what string, pdf []byte, bleed float64) {
	t.Helper()
	path := checkText(t, what, pdf)
	for _, c := range modelColours {
		got := pdfxtest.Painted(t, path, 1, 100, c.x+bleed, c.y+bleed)
		if near(got.R, c.want[0]) && near(got.G, c.want[1]) && near(got.B, c.want[2]) {
			continue
		}
		t.Errorf("%s at %g, %g: %v, want %v", what, c.x, c.y, got, c.want)
	}
}

// checkText checks that the card's words are text in the PDF, the
// fallback font embedded for the Japanese, and returns the file's path.
func checkText(t *testing.T, what string, pdf []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "card.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	text := poppler.Run(t, "pdftotext", path, "-")
	if !strings.Contains(strings.Join(strings.Fields(text), ""), "Ada山田") {
		t.Errorf("%s: the text reads %q", what, text)
	}
	if fonts := poppler.Run(t, "pdffonts", path); !strings.Contains(fonts, "+DroidSansFallback") {
		t.Errorf("%s: pdffonts lists\n%s\nwant the fallback font for 山田", what, fonts)
	}
	return path
}

func near(a, b uint8) bool { return math.Abs(float64(a)-float64(b)) <= 24 }

// waitShopFile waits until a shop order's print is ready, and returns
// its file's link.
func waitShopFile(t *testing.T, f *fixture, ref string) string {
	t.Helper()
	order := f.srv.WaitShopOrder(t, f.shop.Token, ref)
	p := order["lines"].([]any)[0].(map[string]any)["prints"].([]any)[0].(map[string]any)
	if p["status"] != "ready" {
		t.Fatalf("shop print: %v", p)
	}
	return p["files"].([]any)[0].(map[string]any)["url"].(string)
}
