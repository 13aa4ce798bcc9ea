package catalog_test

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/platen-print/platen/internal/platentest"
)

// catalogue is one team's category and product, made through the API.
type catalogue struct {
	category, product float64
}

func newCatalogue(t *testing.T, srv *platentest.Server, tenant platentest.Tenant, dpi any) catalogue {
	t.Helper()
	category := map[string]any{"name": "Mugs"}
	if dpi != nil {
		category["default_dpi"] = dpi
	}
	r := srv.Do(t, "POST", "/api/v1/product-categories", tenant.Token, category)
	c := r.Object(t)["id"].(float64)
	r = srv.Do(t, "POST", "/api/v1/products", tenant.Token, map[string]any{
		"category_id": c, "name": "Mug 11oz", "order_column": 1, "active": true, "team_id": tenant.TeamID})
	if r.Status != 200 {
		t.Fatalf("create product: %d %s", r.Status, r.Raw)
	}
	return catalogue{category: c, product: r.Object(t)["id"].(float64)}
}

func TestVariants(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		globex := srv.Bootstrap(t, "globex", "globex-shop")
		cat := newCatalogue(t, srv, acme, nil)
		full := map[string]any{
			"uuid": "6F1C2A3E-8B7D-4C55-9A10-2B3C4D5E6F70", "name": "White, 11oz", "product_variant_category_id": 7,
			"product_id": cat.product, "price_id": 12, "editor_product_id": "ed-1", "weight": 350, "length": 120,
			"width": 95, "height": 82, "description": "Dishwasher safe", "country_id": 276, "customs_code": "6912",
			"customs_description": "Ceramic mug", "long_customs_description": "Ceramic tableware, mug",
			"default_dpi": 600, "seo_details": "mug white", "ecommerce_tags": "mug,white, gift",
			"default_location_id": 3, "ecommerce_variant_ids": []any{"shopify-111", "woo-222"},
		}
		r := srv.Do(t, "POST", "/api/v1/product-variants", acme.Token, full)
		if r.Status != 200 {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		created := r.Object(t)
		id := int(created["id"].(float64))
		path := fmt.Sprintf("/api/v1/product-variants/%d", id)

		t.Run("create answers every field as sent", func(t *testing.T) {
			for k, v := range full {
				want := v
				switch k {
				case "uuid":
					want = strings.ToLower(v.(string)) // UUIDs compare without case
				case "product_variant_category_id", "price_id", "weight", "length", "width", "height",
					"country_id", "default_dpi", "default_location_id":
					want = float64(v.(int))
				}
				if !reflect.DeepEqual(created[k], want) {
					t.Errorf("%s = %#v, want %#v", k, created[k], want)
				}
			}
			if id < 1 || created["created_at"] == nil || created["updated_at"] == nil {
				t.Errorf("created: %v", created)
			}
			if got := srv.Do(t, "GET", path, acme.Token, nil); got.Status != 200 || !reflect.DeepEqual(got.JSON, any(created)) {
				t.Errorf("GET %d %s, created %v", got.Status, got.Raw, created)
			}
		})
		t.Run("the minimal variant gets a uuid and nulls", func(t *testing.T) {
			r := srv.Do(t, "POST", "/api/v1/product-variants", acme.Token,
				map[string]any{"name": "Black", "product_id": cat.product, "country_id": 840})
			v := r.Object(t)
			if r.Status != 200 || len(v["uuid"].(string)) != 36 || v["weight"] != nil || v["default_dpi"] != nil ||
				v["ecommerce_tags"] != nil || !reflect.DeepEqual(v["ecommerce_variant_ids"], []any{}) {
				t.Errorf("minimal: %d %s", r.Status, r.Raw)
			}
		})
		t.Run("uuid and ecommerce ids are unique within the team", func(t *testing.T) {
			dup := map[string]any{"name": "Dup", "product_id": cat.product, "country_id": 276, "uuid": created["uuid"]}
			_, fields := platentest.ErrorBody(t, srv.Do(t, "POST", "/api/v1/product-variants", acme.Token, dup), 409)
			if !reflect.DeepEqual(fields, []string{"uuid"}) {
				t.Errorf("duplicate uuid: fields %v", fields)
			}
			clash := map[string]any{"name": "Clash", "product_id": cat.product, "country_id": 276,
				"ecommerce_variant_ids": []any{"new-1", "woo-222"}}
			msg, fields := platentest.ErrorBody(t, srv.Do(t, "POST", "/api/v1/product-variants", acme.Token, clash), 409)
			if !reflect.DeepEqual(fields, []string{"ecommerce_variant_ids[1]"}) || !strings.Contains(msg, fmt.Sprint(id)) {
				t.Errorf("taken ecommerce id: %q %v", msg, fields)
			}
			// Another team has its own namespace for both.
			theirs := newCatalogue(t, srv, globex, nil)
			r := srv.Do(t, "POST", "/api/v1/product-variants", globex.Token, map[string]any{"name": "Theirs",
				"product_id": theirs.product, "country_id": 250, "uuid": created["uuid"], "ecommerce_variant_ids": []any{"woo-222"}})
			if r.Status != 200 {
				t.Errorf("globex reusing acme's uuid and ecommerce id: %d %s", r.Status, r.Raw)
			}
		})
		t.Run("update replaces what is present; the id list as a whole", func(t *testing.T) {
			r := srv.Do(t, "PUT", path, acme.Token, map[string]any{"weight": 0, "ecommerce_tags": "sale",
				"ecommerce_variant_ids": []any{"woo-222", "etsy-333"}, "description": nil})
			v := r.Object(t)
			if r.Status != 200 || v["weight"] != 0.0 || v["ecommerce_tags"] != "sale" || v["description"] != nil ||
				!reflect.DeepEqual(v["ecommerce_variant_ids"], []any{"woo-222", "etsy-333"}) ||
				v["name"] != created["name"] || v["uuid"] != created["uuid"] || v["created_at"] != created["created_at"] {
				t.Errorf("update: %d %s", r.Status, r.Raw)
			}
			// The id it gave up is free for another variant.
			r = srv.Do(t, "POST", "/api/v1/product-variants", acme.Token, map[string]any{"name": "Takes it",
				"product_id": cat.product, "country_id": 276, "ecommerce_variant_ids": []any{"shopify-111"}})
			if r.Status != 200 {
				t.Errorf("reuse a released id: %d %s", r.Status, r.Raw)
			}
			_, fields := platentest.ErrorBody(t, srv.Do(t, "PUT", path, acme.Token, map[string]any{"ecommerce_variant_ids": []any{"shopify-111"}}), 409)
			if !reflect.DeepEqual(fields, []string{"ecommerce_variant_ids[0]"}) {
				t.Errorf("update onto a taken id: %v", fields)
			}
			for _, f := range []string{"name", "product_id", "country_id", "uuid"} {
				_, fields := platentest.ErrorBody(t, srv.Do(t, "PUT", path, acme.Token, fmt.Sprintf(`{%q: null}`, f)), 400)
				if !reflect.DeepEqual(fields, []string{f}) {
					t.Errorf("null %s: %v", f, fields)
				}
			}
			after := srv.Do(t, "GET", path, acme.Token, nil).Object(t)
			if !reflect.DeepEqual(after["ecommerce_variant_ids"], []any{"woo-222", "etsy-333"}) {
				t.Errorf("a refused update changed the variant: %v", after)
			}
		})
		t.Run("list pages and filters by product", func(t *testing.T) {
			other := newCatalogue(t, srv, acme, nil)
			srv.Do(t, "POST", "/api/v1/product-variants", acme.Token, map[string]any{"name": "Other", "product_id": other.product, "country_id": 826})
			var seen []string
			token := ""
			for page := 0; page < 10; page++ {
				r := srv.Do(t, "GET", "/api/v1/product-variants?page_size=2&page_token="+token, acme.Token, nil).Object(t)
				for _, v := range r["product_variants"].([]any) {
					seen = append(seen, v.(map[string]any)["name"].(string))
				}
				if token = r["next_page_token"].(string); token == "" {
					break
				}
			}
			if len(seen) != 4 {
				t.Errorf("paged through %v", seen)
			}
			r := srv.Do(t, "GET", fmt.Sprintf("/api/v1/product-variants?product_id=%d", int(other.product)), acme.Token, nil).Object(t)
			if list := r["product_variants"].([]any); len(list) != 1 || list[0].(map[string]any)["name"] != "Other" {
				t.Errorf("filtered: %v", list)
			}
		})
		t.Run("another team's variants are invisible", func(t *testing.T) {
			platentest.ErrorBody(t, srv.Do(t, "GET", path, globex.Token, nil), 404)
			platentest.ErrorBody(t, srv.Do(t, "PUT", path, globex.Token, map[string]any{"name": "x"}), 404)
			platentest.ErrorBody(t, srv.Do(t, "DELETE", path, globex.Token, nil), 404)
		})
		t.Run("a product with variants cannot be deleted; the variant can", func(t *testing.T) {
			productPath := fmt.Sprintf("/api/v1/products/%d", int(cat.product))
			platentest.ErrorBody(t, srv.Do(t, "DELETE", productPath, acme.Token, nil), 409)
			r := srv.Do(t, "DELETE", path, acme.Token, nil)
			if r.Status != 200 || !reflect.DeepEqual(r.JSON, map[string]any{"message": "Product variant successfully deleted", "variant_id": float64(id)}) {
				t.Fatalf("delete: %d %s", r.Status, r.Raw)
			}
			platentest.ErrorBody(t, srv.Do(t, "GET", path, acme.Token, nil), 404)
			// Its ecommerce ids went with it.
			r = srv.Do(t, "POST", "/api/v1/product-variants", acme.Token, map[string]any{"name": "Heir",
				"product_id": cat.product, "country_id": 276, "ecommerce_variant_ids": []any{"woo-222", "etsy-333"}})
			if r.Status != 200 {
				t.Errorf("ids of a deleted variant: %d %s", r.Status, r.Raw)
			}
		})
	})
}

// TestVariantIDsRace has many variants claim one ecommerce id at once:
// exactly one wins, the rest get 409, never a 500.
func TestVariantIDsRace(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		cat := newCatalogue(t, srv, acme, nil)
		const n = 12
		statuses := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = srv.Do(t, "POST", "/api/v1/product-variants", acme.Token, map[string]any{
					"name": fmt.Sprint("V", i), "product_id": cat.product, "country_id": 276,
					"ecommerce_variant_ids": []any{fmt.Sprint("own-", i), "contested"}}).Status
			}()
		}
		wg.Wait()
		count := map[int]int{}
		for _, s := range statuses {
			count[s]++
		}
		if count[200] != 1 || count[409] != n-1 {
			t.Errorf("statuses %v", count)
		}
	})
}
