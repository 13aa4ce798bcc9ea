package catalog_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/platen-print/platen/internal/platentest"
)

func TestProducts(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		globex := srv.Bootstrap(t, "globex", "globex-shop")
		newCategory := func(token, name string) float64 {
			r := srv.Do(t, "POST", "/api/v1/product-categories", token, map[string]any{"name": name})
			return r.Object(t)["id"].(float64)
		}
		mugs, prints := newCategory(acme.Token, "Mugs"), newCategory(acme.Token, "Prints")
		foreign := newCategory(globex.Token, "Theirs")
		body := func() map[string]any {
			return map[string]any{"category_id": mugs, "name": "Mug 11oz", "order_column": 1, "active": true, "team_id": acme.TeamID}
		}

		r := srv.Do(t, "POST", "/api/v1/products", acme.Token, body())
		if r.Status != 200 {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		mug := r.Object(t)
		id := int(mug["id"].(float64))
		if len(mug["uuid"].(string)) != 36 || mug["code"] != nil || mug["default_dpi"] != nil || mug["team_id"] != float64(acme.TeamID) {
			t.Errorf("created: %v", mug)
		}
		path := fmt.Sprintf("/api/v1/products/%d", id)

		t.Run("read, list and filter", func(t *testing.T) {
			if got := srv.Do(t, "GET", path, acme.Token, nil); !reflect.DeepEqual(got.JSON, any(mug)) {
				t.Errorf("GET %s, created %v", got.Raw, mug)
			}
			srv.Do(t, "POST", "/api/v1/products", acme.Token, map[string]any{"category_id": prints, "name": "A4 print", "order_column": 2, "active": false, "team_id": acme.TeamID})
			all := srv.Do(t, "GET", "/api/v1/products", acme.Token, nil).Object(t)["products"].([]any)
			some := srv.Do(t, "GET", fmt.Sprintf("/api/v1/products?category_id=%d", int(prints)), acme.Token, nil).Object(t)["products"].([]any)
			if len(all) != 2 || len(some) != 1 || some[0].(map[string]any)["name"] != "A4 print" {
				t.Errorf("list %d, filtered %v", len(all), some)
			}
		})
		t.Run("update replaces what is present", func(t *testing.T) {
			r := srv.Do(t, "PUT", path, acme.Token, map[string]any{"code": "MUG-11", "default_dpi": 600, "category_id": prints})
			o := r.Object(t)
			if r.Status != 200 || o["code"] != "MUG-11" || o["default_dpi"] != 600.0 || o["category_id"] != prints || o["name"] != "Mug 11oz" || o["uuid"] != mug["uuid"] {
				t.Errorf("update: %d %s", r.Status, r.Raw)
			}
			r = srv.Do(t, "PUT", path, acme.Token, `{"code": null}`)
			if r.Object(t)["code"] != nil {
				t.Errorf("null did not clear code: %s", r.Raw)
			}
		})
		t.Run("bad input", func(t *testing.T) {
			for _, f := range []string{"category_id", "name", "order_column", "active", "team_id"} {
				bad := body()
				delete(bad, f)
				_, fields := platentest.ErrorBody(t, srv.Do(t, "POST", "/api/v1/products", acme.Token, bad), 400)
				if !reflect.DeepEqual(fields, []string{f}) {
					t.Errorf("missing %s: fields %v", f, fields)
				}
			}
			cases := []struct {
				key   string
				value any
				code  int
			}{
				{"default_dpi", -1, 400}, {"default_dpi", 0, 400}, {"order_column", "1", 400}, {"active", "yes", 400},
				{"category_id", 999999, 400}, {"category_id", foreign, 400}, {"team_id", acme.TeamID + 1000, 403},
				{"team_id", "1", 400}, {"default_location_id", -5, 400},
			}
			for _, c := range cases {
				bad := body()
				bad[c.key] = c.value
				_, fields := platentest.ErrorBody(t, srv.Do(t, "POST", "/api/v1/products", acme.Token, bad), c.code)
				if !reflect.DeepEqual(fields, []string{c.key}) {
					t.Errorf("%s=%v: fields %v", c.key, c.value, fields)
				}
			}
			platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/products/not-a-number", acme.Token, nil), 400)
			platentest.ErrorBody(t, srv.Do(t, "PUT", path, acme.Token, map[string]any{"team_id": globex.TeamID}), 403)
			for _, f := range []string{"active", "name", "category_id"} {
				_, fields := platentest.ErrorBody(t, srv.Do(t, "PUT", path, acme.Token, fmt.Sprintf(`{%q: null}`, f)), 400)
				if !reflect.DeepEqual(fields, []string{f}) {
					t.Errorf("null %s: fields %v", f, fields)
				}
			}
		})
		t.Run("another team's products are invisible", func(t *testing.T) {
			platentest.ErrorBody(t, srv.Do(t, "GET", path, globex.Token, nil), 404)
			platentest.ErrorBody(t, srv.Do(t, "PUT", path, globex.Token, map[string]any{"name": "x"}), 404)
			platentest.ErrorBody(t, srv.Do(t, "DELETE", path, globex.Token, nil), 404)
			if n := len(srv.Do(t, "GET", "/api/v1/products", globex.Token, nil).Object(t)["products"].([]any)); n != 0 {
				t.Errorf("globex lists %d products", n)
			}
		})
		t.Run("a category with products cannot be deleted; the product can", func(t *testing.T) {
			platentest.ErrorBody(t, srv.Do(t, "DELETE", fmt.Sprintf("/api/v1/product-categories/%d", int(prints)), acme.Token, nil), 409)
			r := srv.Do(t, "DELETE", path, acme.Token, nil)
			if r.Status != 200 || !reflect.DeepEqual(r.JSON, map[string]any{"message": "Product successfully deleted", "product_id": float64(id)}) {
				t.Fatalf("delete: %d %s", r.Status, r.Raw)
			}
			platentest.ErrorBody(t, srv.Do(t, "GET", path, acme.Token, nil), 404)
		})
	})
}
