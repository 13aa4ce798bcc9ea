package press_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/pdfxtest"
	"github.com/platen-print/platen/internal/platentest"
)

// TestTemplatePressSettingsReachTheSheets: a print template's output
// profile is its batch files' output intent, its cut_contour_spot the
// plate their cut lines go to, and its min_effective_ppi,
// set by an update, fails a batch with a low-resolution item naming the
// item, the layer and why; the template answers its settings.
func TestTemplatePressSettingsReachTheSheets(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.StartWith(t, b, func(c *config.Config) { c.AllowPrivateNetwork = true })
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		staff := srv.Staff(t, "grace@example.com")
		team := srv.TeamToken(t, acme.TeamID)
		hooks := platentest.NewReceiver(t)
		if r := srv.Do(t, "PUT", "/api/v1/stores/"+acme.StoreID+"/webhook", team, map[string]any{"url": hooks.URL}); r.Status != http.StatusOK {
			t.Fatalf("webhook: %d %s", r.Status, r.Raw)
		}
		profile := platentest.CMYKProfile(t)
		uid := srv.Do(t, "POST", "/api/v1/operator/output-profiles", staff.Token, upload(acme.TeamID, "TEST-PRESS-1", profile)).Object(t)["uid"]
		cat := srv.Do(t, "POST", "/api/v1/product-categories", team, map[string]any{"name": "Cards"})
		prod := srv.Do(t, "POST", "/api/v1/products", team, map[string]any{"category_id": cat.Object(t)["id"], "name": "Card",
			"order_column": 1, "active": true, "team_id": acme.TeamID})
		variant := srv.Do(t, "POST", "/api/v1/product-variants", team, map[string]any{"name": "A6", "product_id": prod.Object(t)["id"],
			"country_id": 276, "ecommerce_variant_ids": []string{"card-a6"}}).Object(t)
		r := srv.Do(t, "POST", "/api/v1/operator/print-templates", staff.Token, map[string]any{
			"team_id": acme.TeamID, "name": "SRA3", "sheet_width_mm": 320, "sheet_height_mm": 450,
			"margin_top_mm": 5, "margin_right_mm": 5, "margin_bottom_mm": 5, "margin_left_mm": 5, "gap_mm": 6,
			"grid":        map[string]any{"columns": 2, "rows": 4, "slot_width_mm": 148, "slot_height_mm": 105},
			"variant_ids": []any{variant["id"]}, "output_profile_id": uid, "cut_contour_spot": "Kiss-cut",
		})
		if r.Status != http.StatusOK {
			t.Fatalf("template: %d %s", r.Status, r.Raw)
		}
		tmpl := r.Object(t)
		for k, v := range map[string]any{"output_profile_id": uid, "min_effective_ppi": nil, "safe_margin_mm": nil, "cut_contour_spot": "Kiss-cut",
			"allow_missing_glyphs": nil} {
			if got, ok := tmpl[k]; !ok || got != v {
				t.Errorf("template %s = %v, want %v", k, got, v)
			}
		}

		cutCard := `{"width":148,"height":105,"layers":[{"type":"cut","x":10,"y":10,"width":128,"height":85}]}`
		lowres := fmt.Sprintf(`{"width":148,"height":105,"layers":[{"type":"image","src":%q,"x":20,"y":20,"width":50,"height":50}]}`, lowResPNG(t))
		order := srv.Do(t, "POST", "/api/v1/orders", acme.Token, map[string]any{"store_id": acme.StoreID, "ecommerce_order_id": "1001",
			"items": []any{orderItem("1001-1", "card-a6", cutCard), orderItem("1001-2", "card-a6", lowres)}})
		if order.Status != http.StatusOK {
			t.Fatalf("order: %d %s", order.Status, order.Raw)
		}
		var items []any
		for _, it := range order.Object(t)["items"].([]any) {
			items = append(items, it.(map[string]any)["uid"])
		}
		batch := func(items ...any) string {
			t.Helper()
			r := srv.Do(t, "POST", "/api/v1/batch-orders", team, map[string]any{"order_items": items, "print_templates": []any{tmpl["uid"]}})
			if r.Status != http.StatusOK {
				t.Fatalf("batch: %d %s", r.Status, r.Raw)
			}
			return r.Object(t)["uid"].(string)
		}

		ready := batch(items...)
		event := settled(t, hooks, ready)[ready]
		if event["event"] != "batch_order.ready" {
			t.Fatalf("batch: %v", event)
		}
		_, pdf := platentest.Download(t, event["files"].([]any)[0].(map[string]any)["url"].(string))
		if in := pdfxtest.OutputIntentOf(t, pdf); in.Identifier != "TEST-PRESS-1" || !bytes.Equal(in.Profile, profile) {
			t.Errorf("the batch file's output intent names %q; want the template's profile", in.Identifier)
		}
		path := filepath.Join(t.TempDir(), "sheets.pdf")
		if err := os.WriteFile(path, pdf, 0o600); err != nil {
			t.Fatal(err)
		}
		if names := pdfxtest.Separate(t, path, 1, 36).Names(); !slices.Contains(names, "Kiss-cut") || slices.Contains(names, "CutContour") {
			t.Errorf("the sheet's plates: %v; want the cut line on Kiss-cut", names)
		}

		r = srv.Do(t, "PUT", "/api/v1/operator/print-templates/"+url.PathEscape(tmpl["uid"].(string)), staff.Token, map[string]any{"min_effective_ppi": 150})
		if r.Status != http.StatusOK || r.Object(t)["min_effective_ppi"] != 150.0 || r.Object(t)["output_profile_id"] != uid {
			t.Fatalf("template update: %d %s", r.Status, r.Raw)
		}
		failed := batch(items...)
		if event := settled(t, hooks, failed)[failed]; event["event"] != "batch_order.failed" {
			t.Fatalf("batch with a low-resolution item: %v", event)
		}
		got := srv.Do(t, "GET", "/api/v1/batch-orders/"+failed, team, nil).Object(t)
		want := "order_items[1]: layers[0]: the 40×40 image is 20 ppi at its placed size, below the minimum of 150 ppi set for this product"
		if got["status"] != "Failed" || got["error"] != want {
			t.Errorf("failed batch: %v; want error %q", got, want)
		}
	})
}
