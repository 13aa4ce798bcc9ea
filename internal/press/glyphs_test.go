package press_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/platentest"
)

// glyphsReason is why a print of missingGlyphDoc fails on a server without
// fallback fonts.
const glyphsReason = `layers[0]: no font has the characters "\ue000" (U+E000); fonts tried: Go-Regular`

// missingGlyphDoc is an A6 card whose text has U+E000, a private-use
// character no font has.
const missingGlyphDoc = `{"width":148,"height":105,"layers":[{"type":"text","text":"Ada \ue000","size":18,"x":10,"y":10,"width":100}]}`

// glyphsWarnings are the warnings of a print of missingGlyphDoc that its
// settings let leave the character out.
var glyphsWarnings = []any{map[string]any{"code": "missing_glyphs", "layer": "layers[0]",
	"message": `no font has the characters "\ue000": they print as nothing`}}

// TestAllowMissingGlyphs: allow_missing_glyphs is set, answered and
// cleared (null) like the other press settings on a variant, a print
// template and the team's default, and a value that is not a boolean is a
// 400 naming it; the print settings answer the effective one (the
// variant's, else the team's default). With it true a character no font
// has is left out with a missing_glyphs warning instead of failing the
// print: an item of a variant setting it is ready where the same design
// under a variant without it fails naming the characters; a batch file
// of a template setting it is ready, and fails once the template clears
// it; a shop print takes the team's default.
func TestAllowMissingGlyphs(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.StartWith(t, b, func(c *config.Config) {
			c.AllowPrivateNetwork = true
			c.FallbackFonts = []string{}
		})
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		staff := srv.Staff(t, "grace@example.com")
		team := srv.TeamToken(t, acme.TeamID)
		hooks := platentest.NewReceiver(t)
		if r := srv.Do(t, "PUT", "/api/v1/stores/"+acme.StoreID+"/webhook", team, map[string]any{"url": hooks.URL}); r.Status != http.StatusOK {
			t.Fatalf("webhook: %d %s", r.Status, r.Raw)
		}
		const field = "allow_missing_glyphs"
		// answers checks that r is a 200 answering allow_missing_glyphs want.
		answers := func(what string, r *platentest.Response, want any) map[string]any {
			t.Helper()
			if r.Status != http.StatusOK {
				t.Fatalf("%s: %d %s", what, r.Status, r.Raw)
			}
			got := r.Object(t)
			if v, ok := got[field]; !ok || v != want {
				t.Errorf("%s: %s = %v (present: %v), want %v", what, field, v, ok, want)
			}
			return got
		}
		// refuses checks that each value that is not a boolean is a 400
		// naming the field.
		refuses := func(what, method, path, token string, body map[string]any) {
			t.Helper()
			for _, bad := range []any{"yes", "true", 1, map[string]any{"value": true}, []any{true}} {
				b := map[string]any{field: bad}
				for k, v := range body {
					b[k] = v
				}
				msg, fields := platentest.ErrorBody(t, srv.Do(t, method, path, token, b), http.StatusBadRequest)
				if !slices.Contains(fields, field) || msg != field+": must be true or false" {
					t.Errorf("%s with %s %v: %q naming %v, want %s", what, field, bad, msg, fields, field)
				}
			}
		}

		// A variant: the client's catalog API.
		cat := srv.Do(t, "POST", "/api/v1/product-categories", team, map[string]any{"name": "Cards"})
		prod := srv.Do(t, "POST", "/api/v1/products", team, map[string]any{"category_id": cat.Object(t)["id"], "name": "Card",
			"order_column": 1, "active": true, "team_id": acme.TeamID})
		variant := func(evid string, settings map[string]any, want any) map[string]any {
			t.Helper()
			body := map[string]any{"name": evid, "product_id": prod.Object(t)["id"], "country_id": 276, "ecommerce_variant_ids": []string{evid}}
			for k, v := range settings {
				body[k] = v
			}
			return answers("variant "+evid, srv.Do(t, "POST", "/api/v1/product-variants", team, body), want)
		}
		allowed := variant("card-allowed", map[string]any{field: true}, true)
		plain := variant("card-plain", nil, nil)
		variant("card-refused", map[string]any{field: false}, false)
		variantPath := func(v map[string]any) string { return fmt.Sprintf("/api/v1/product-variants/%v", v["id"]) }
		answers("variant GET", srv.Do(t, "GET", variantPath(allowed), team, nil), true)
		answers("variant PUT true", srv.Do(t, "PUT", variantPath(plain), team, map[string]any{field: true}), true)
		answers("variant PUT null", srv.Do(t, "PUT", variantPath(plain), team, map[string]any{field: nil}), nil)
		answers("variant GET after null", srv.Do(t, "GET", variantPath(plain), team, nil), nil)
		if got := answers("variant PUT of another field", srv.Do(t, "PUT", variantPath(allowed), team, map[string]any{"safe_margin_mm": 2}), true); got["safe_margin_mm"] != 2.0 {
			t.Errorf("variant PUT of safe_margin_mm: %v", got)
		}
		srv.Do(t, "PUT", variantPath(allowed), team, map[string]any{"safe_margin_mm": nil})
		refuses("variant create", "POST", "/api/v1/product-variants", team, map[string]any{"name": "bad", "product_id": prod.Object(t)["id"], "country_id": 276})
		refuses("variant update", "PUT", variantPath(plain), team, nil)
		answers("variant GET after refusals", srv.Do(t, "GET", variantPath(plain), team, nil), nil)

		// Family A: the variant's setting decides.
		doc := url.QueryEscape(missingGlyphDoc)
		item := func(id, evid string) map[string]any {
			return map[string]any{"ecommerce_order_item_id": id, "ecommerce_variant_id": evid, "quantity": 1,
				"thumbnails": []string{"https://example.com/t.png"}, "template_config": doc}
		}
		order := srv.Do(t, "POST", "/api/v1/orders", acme.Token, map[string]any{"store_id": acme.StoreID, "ecommerce_order_id": "1001",
			"create_print_files": true, "items": []any{item("1001-allowed", "card-allowed"), item("1001-plain", "card-plain"), item("1001-refused", "card-refused")}})
		if order.Status != http.StatusOK {
			t.Fatalf("order: %d %s", order.Status, order.Raw)
		}
		events := settled(t, hooks, "1001-allowed", "1001-plain", "1001-refused")
		status := func(id string) map[string]any {
			t.Helper()
			return srv.Do(t, "GET", "/api/v1/order-items/"+id+"/print", acme.Token, nil).Object(t)
		}
		if st := status("1001-allowed"); events["1001-allowed"]["event"] != "order_item.print_file.ready" || st["status"] != "ready" ||
			st["error"] != nil || !sameJSON(st["warnings"], glyphsWarnings) {
			t.Errorf("an item of a variant allowing missing glyphs: %v (event %v); want ready with warnings %v", st, events["1001-allowed"], glyphsWarnings)
		}
		for _, id := range []string{"1001-plain", "1001-refused"} {
			if st := status(id); events[id]["event"] != "order_item.print_file.failed" || st["status"] != "processingfailed" || st["error"] != glyphsReason {
				t.Errorf("%s: %v (event %v); want processingfailed with %q", id, st, events[id], glyphsReason)
			}
		}
		if u, _ := events["1001-allowed"]["url"].(string); u != "" {
			if _, pdf := platentest.Download(t, u); len(pdf) == 0 {
				t.Error("the allowed item's PDF is empty")
			}
		}

		// A print template: the operator API; its setting decides for the
		// batch files.
		tmplBody := map[string]any{"team_id": acme.TeamID, "name": "SRA3", "sheet_width_mm": 320, "sheet_height_mm": 450,
			"margin_top_mm": 5, "margin_right_mm": 5, "margin_bottom_mm": 5, "margin_left_mm": 5, "gap_mm": 6,
			"grid":        map[string]any{"columns": 2, "rows": 4, "slot_width_mm": 148, "slot_height_mm": 105},
			"variant_ids": []any{plain["id"]}}
		refuses("template create", "POST", "/api/v1/operator/print-templates", staff.Token, tmplBody)
		tmplBody[field] = true
		tmpl := answers("template create", srv.Do(t, "POST", "/api/v1/operator/print-templates", staff.Token, tmplBody), true)
		tmplPath := "/api/v1/operator/print-templates/" + url.PathEscape(tmpl["uid"].(string))
		answers("template GET", srv.Do(t, "GET", tmplPath, staff.Token, nil), true)
		refuses("template update", "PUT", tmplPath, staff.Token, nil)
		items := order.Object(t)["items"].([]any)
		batch := func() (string, map[string]any) {
			t.Helper()
			r := srv.Do(t, "POST", "/api/v1/batch-orders", team, map[string]any{"order_items": []any{items[1].(map[string]any)["uid"]},
				"print_templates": []any{tmpl["uid"]}})
			if r.Status != http.StatusOK {
				t.Fatalf("batch: %d %s", r.Status, r.Raw)
			}
			uid := r.Object(t)["uid"].(string)
			return uid, settled(t, hooks, uid)[uid]
		}
		if _, event := batch(); event["event"] != "batch_order.ready" {
			t.Errorf("a batch of a template allowing missing glyphs: %v", event)
		}
		answers("template PUT null", srv.Do(t, "PUT", tmplPath, staff.Token, map[string]any{field: nil}), nil)
		failed, event := batch()
		if event["event"] != "batch_order.failed" {
			t.Errorf("a batch of a template without the setting: %v", event)
		}
		want := "order_items[0]: " + glyphsReason
		if got := srv.Do(t, "GET", "/api/v1/batch-orders/"+failed, team, nil).Object(t); got["status"] != "Failed" || got["error"] != want {
			t.Errorf("failed batch: %v; want error %q", got, want)
		}

		// The team's default: the operator API.
		settingsPath := fmt.Sprintf("/api/v1/operator/teams/%d/press-settings", acme.TeamID)
		answers("team default GET", srv.Do(t, "GET", settingsPath, staff.Token, nil), nil)
		refuses("team default", "PUT", settingsPath, staff.Token, nil)
		answers("team default PUT true", srv.Do(t, "PUT", settingsPath, staff.Token, map[string]any{field: true}), true)
		if got := answers("team default GET", srv.Do(t, "GET", settingsPath, staff.Token, nil), true); !sameJSON(got, map[string]any{
			"team_id": float64(acme.TeamID), "output_profile_id": nil, "min_effective_ppi": nil, "safe_margin_mm": nil,
			"cut_contour_spot": nil, field: true}) {
			t.Errorf("team default: %v", got)
		}

		// The effective setting, as a client reads it: the variant's, else
		// the team's default.
		for id, want := range map[string]any{"1001-allowed": true, "1001-plain": true, "1001-refused": false} {
			r := srv.Do(t, "GET", "/api/v1/print-settings?order_item_uid="+itemUID(t, srv, acme.Token, id), acme.Token, nil)
			answers("print settings of "+id, r, want)
		}

		// Family B: no variant, so the team's default.
		dv := map[string]any{"design_version_id": "glyphs-v1", "template_config": doc, "thumbnails": []string{"https://example.com/t.png"}}
		if r := srv.Do(t, "POST", "/api/v1/design-versions", team, dv); r.Status != http.StatusOK {
			t.Fatalf("design version: %d %s", r.Status, r.Raw)
		}
		answers("print settings of a design version", srv.Do(t, "GET", "/api/v1/print-settings?design_version_id=glyphs-v1", acme.Token, nil), true)
		r := srv.Do(t, "POST", "/v1/shop/orders", acme.Token, map[string]any{"external_id": "SO-1", "lines": []any{map[string]any{"design_version_id": "glyphs-v1", "quantity": 1}}})
		if r.Status != http.StatusCreated {
			t.Fatalf("shop order: %d %s", r.Status, r.Raw)
		}
		if shop := settled(t, hooks, "SO-1")["SO-1"]; shop["status"] != "ready" {
			t.Errorf("a shop print under a team default allowing missing glyphs: %v", shop)
		}
		got := srv.Do(t, "GET", "/v1/shop/orders/SO-1", acme.Token, nil).Object(t)
		shopPrint := got["data"].(map[string]any)["lines"].([]any)[0].(map[string]any)["prints"].([]any)[0].(map[string]any)
		if shopPrint["status"] != "ready" || !sameJSON(shopPrint["warnings"], glyphsWarnings) {
			t.Errorf("the shop print: %v; want ready with warnings %v", shopPrint, glyphsWarnings)
		}

		answers("team default PUT null", srv.Do(t, "PUT", settingsPath, staff.Token, map[string]any{field: nil}), nil)
		answers("team default GET after null", srv.Do(t, "GET", settingsPath, staff.Token, nil), nil)
		answers("print settings after the default's null", srv.Do(t, "GET", "/api/v1/print-settings?order_item_uid="+itemUID(t, srv, acme.Token, "1001-plain"), acme.Token, nil), nil)
	})
}
