package catalog_test

import (
	"fmt"
	"net/url"
	"reflect"
	"testing"

	"github.com/platen-print/platen/internal/platentest"
)

// TestPrintSettings walks the DPI rule down its chain through the API: the
// design's own dpi, else the variant's, the product's, the category's, 300.
func TestPrintSettings(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		globex := srv.Bootstrap(t, "globex", "globex-shop")
		cat := newCatalogue(t, srv, acme, 200)
		r := srv.Do(t, "POST", "/api/v1/product-variants", acme.Token, map[string]any{"name": "White",
			"product_id": cat.product, "country_id": 276, "ecommerce_variant_ids": []any{"sku-1", "sku-2"}})
		variant := r.Object(t)["id"].(float64)

		plain, declared := url.QueryEscape(`{"width":10,"height":10,"layers":[]}`), url.QueryEscape(`{"width":10,"height":10,"layers":[],"dpi":72}`)
		order := srv.Do(t, "POST", "/api/v1/orders", acme.Token, map[string]any{
			"store_id": acme.StoreID, "ecommerce_order_id": "o-1", "items": []any{
				map[string]any{"ecommerce_order_item_id": "i-1", "ecommerce_variant_id": "sku-2", "quantity": 1,
					"template_config": plain, "thumbnails": []any{"https://example.com/t.png"}, "design_version_id": "dv-plain"},
				map[string]any{"ecommerce_order_item_id": "i-2", "ecommerce_variant_id": "sku-1", "quantity": 1,
					"template_config": declared, "thumbnails": []any{"https://example.com/t.png"}},
				map[string]any{"ecommerce_order_item_id": "i-3", "ecommerce_variant_id": "unmapped", "quantity": 1,
					"template_config": plain, "thumbnails": []any{"https://example.com/t.png"}},
			}}).Object(t)
		items := order["items"].([]any)
		uid := func(i int) string { return items[i].(map[string]any)["uid"].(string) }
		settings := func(t *testing.T, token, query string) map[string]any {
			t.Helper()
			r := srv.Do(t, "GET", "/api/v1/print-settings?"+query, token, nil)
			if r.Status != 200 {
				t.Fatalf("print-settings?%s: %d %s", query, r.Status, r.Raw)
			}
			return r.Object(t)
		}
		chain := map[string]any{"product_variant_id": variant, "product_id": cat.product, "category_id": cat.category}
		want := func(dpi int, source string, withChain bool) map[string]any {
			out := map[string]any{"dpi": float64(dpi), "dpi_source": source,
				"product_variant_id": nil, "product_id": nil, "category_id": nil,
				"output_profile_id": nil, "min_effective_ppi": nil, "safe_margin_mm": nil, "cut_contour_spot": "CutContour",
				"allow_missing_glyphs": nil}
			if withChain {
				for k, v := range chain {
					out[k] = v
				}
			}
			return out
		}
		check := func(t *testing.T, query string, expect map[string]any) {
			t.Helper()
			if got := settings(t, acme.Token, query); !reflect.DeepEqual(got, expect) {
				t.Errorf("%s: got %v, want %v", query, got, expect)
			}
		}
		item1 := "order_item_uid=" + uid(0)

		t.Run("the chain, step by step", func(t *testing.T) {
			check(t, item1, want(200, "category", true))
			srv.Do(t, "PUT", fmt.Sprintf("/api/v1/products/%d", int(cat.product)), acme.Token, map[string]any{"default_dpi": 250})
			check(t, item1, want(250, "product", true))
			srv.Do(t, "PUT", fmt.Sprintf("/api/v1/product-variants/%d", int(variant)), acme.Token, map[string]any{"default_dpi": 600})
			check(t, item1, want(600, "variant", true))
			check(t, "order_item_uid="+uid(1), want(72, "design", true))
			check(t, "order_item_uid="+uid(2), want(300, "default", false))
		})
		t.Run("a design version alone, or as sold under a variant id", func(t *testing.T) {
			check(t, "design_version_id=dv-plain", want(300, "default", false))
			check(t, "design_version_id=dv-plain&ecommerce_variant_id=sku-1", want(600, "variant", true))
		})
		t.Run("the category's default 300 when nothing is set", func(t *testing.T) {
			fresh := newCatalogue(t, srv, acme, nil)
			srv.Do(t, "PUT", fmt.Sprintf("/api/v1/product-variants/%d", int(variant)), acme.Token,
				map[string]any{"product_id": fresh.product, "default_dpi": nil})
			got := settings(t, acme.Token, item1)
			if got["dpi"] != 300.0 || got["dpi_source"] != "category" || got["product_id"] != fresh.product {
				t.Errorf("fresh category: %v", got)
			}
		})
		t.Run("what the caller cannot see is 404; a bad question 400", func(t *testing.T) {
			platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/print-settings?"+item1, globex.Token, nil), 404)
			platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/print-settings?design_version_id=dv-plain", globex.Token, nil), 404)
			other := srv.Bootstrap(t, "acme", "acme-second-shop")
			platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/print-settings?"+item1, other.Token, nil), 404)
			if got := settings(t, srv.TeamToken(t, acme.TeamID), item1); got["dpi_source"] != "category" {
				t.Errorf("team token: %v", got)
			}
			for query, field := range map[string]string{
				"": "order_item_uid", item1 + "&design_version_id=dv-plain": "design_version_id",
				item1 + "&ecommerce_variant_id=sku-1": "ecommerce_variant_id",
			} {
				_, fields := platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/print-settings?"+query, acme.Token, nil), 400)
				if !reflect.DeepEqual(fields, []string{field}) {
					t.Errorf("?%s: fields %v", query, fields)
				}
			}
		})
	})
}
