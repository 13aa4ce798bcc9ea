package catalog_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/platen-print/platen/internal/platentest"
)

func TestCategories(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		globex := srv.Bootstrap(t, "globex", "globex-shop")
		post := func(token string, body any) map[string]any {
			t.Helper()
			r := srv.Do(t, "POST", "/api/v1/product-categories", token, body)
			if r.Status != 200 {
				t.Fatalf("create: %d %s", r.Status, r.Raw)
			}
			return r.Object(t)
		}

		mugs := post(acme.Token, map[string]any{"name": "Mugs", "description": "Ceramic"})
		if mugs["default_dpi"] != 300.0 || mugs["parent_id"] != nil || mugs["description"] != "Ceramic" {
			t.Errorf("defaults: %v", mugs)
		}
		if _, ok := mugs["id"].(float64); !ok || len(mugs["uid"].(string)) != 36 {
			t.Fatalf("id and uid: %v", mugs)
		}
		mugsUID := mugs["uid"].(string)
		big := post(acme.Token, map[string]any{"name": "Big mugs", "parent_id": mugsUID, "default_dpi": 600})
		bigUID := big["uid"].(string)
		if big["parent_id"] != mugsUID || big["default_dpi"] != 600.0 {
			t.Errorf("child: %v", big)
		}

		t.Run("read by uid and by integer id", func(t *testing.T) {
			byUID := srv.Do(t, "GET", "/api/v1/product-categories/"+bigUID, acme.Token, nil)
			byID := srv.Do(t, "GET", fmt.Sprintf("/api/v1/product-categories/%d", int(big["id"].(float64))), acme.Token, nil)
			if byUID.Status != 200 || !reflect.DeepEqual(byUID.JSON, byID.JSON) || !reflect.DeepEqual(byUID.JSON, any(big)) {
				t.Errorf("GET by uid %s\nby id %s\ncreated %v", byUID.Raw, byID.Raw, big)
			}
		})
		t.Run("list, and list children", func(t *testing.T) {
			all := srv.Do(t, "GET", "/api/v1/product-categories", acme.Token, nil).Object(t)
			if n := len(all["product_categories"].([]any)); n != 2 {
				t.Errorf("list has %d categories, want 2", n)
			}
			kids := srv.Do(t, "GET", "/api/v1/product-categories?parent_id="+mugsUID, acme.Token, nil).Object(t)
			if list := kids["product_categories"].([]any); len(list) != 1 || list[0].(map[string]any)["uid"] != bigUID {
				t.Errorf("children: %v", kids)
			}
		})
		t.Run("update: present fields replace, a cycle is refused, null makes it top-level", func(t *testing.T) {
			r := srv.Do(t, "PUT", "/api/v1/product-categories/"+mugsUID, acme.Token, map[string]any{"name": "Cups", "description": nil})
			if r.Status != 200 || r.Object(t)["name"] != "Cups" || r.Object(t)["description"] != nil || r.Object(t)["default_dpi"] != 300.0 {
				t.Fatalf("rename: %d %s", r.Status, r.Raw)
			}
			_, fields := platentest.ErrorBody(t, srv.Do(t, "PUT", "/api/v1/product-categories/"+mugsUID, acme.Token, map[string]any{"parent_id": bigUID}), 400)
			if !reflect.DeepEqual(fields, []string{"parent_id"}) {
				t.Errorf("cycle fields %v", fields)
			}
			platentest.ErrorBody(t, srv.Do(t, "PUT", "/api/v1/product-categories/"+mugsUID, acme.Token, map[string]any{"parent_id": mugsUID}), 400)
			r = srv.Do(t, "PUT", "/api/v1/product-categories/"+bigUID, acme.Token, `{"parent_id": null}`)
			if r.Status != 200 || r.Object(t)["parent_id"] != nil {
				t.Errorf("top-level: %d %s", r.Status, r.Raw)
			}
			srv.Do(t, "PUT", "/api/v1/product-categories/"+bigUID, acme.Token, map[string]any{"parent_id": mugsUID})
		})
		t.Run("bad input", func(t *testing.T) {
			cases := []struct {
				body  any
				field string
			}{
				{map[string]any{}, "name"},
				{map[string]any{"name": ""}, "name"},
				{map[string]any{"name": "x", "default_dpi": -1}, "default_dpi"},
				{map[string]any{"name": "x", "default_dpi": 0}, "default_dpi"},
				{map[string]any{"name": "x", "default_dpi": "300"}, "default_dpi"},
				{map[string]any{"name": 5}, "name"},
				{map[string]any{"name": "x", "parent_id": "no-such-category"}, "parent_id"},
				{map[string]any{"name": "x", "parent_id": mugsUID[:8]}, "parent_id"},
			}
			for _, c := range cases {
				_, fields := platentest.ErrorBody(t, srv.Do(t, "POST", "/api/v1/product-categories", acme.Token, c.body), 400)
				if !reflect.DeepEqual(fields, []string{c.field}) {
					t.Errorf("%v: fields %v, want [%s]", c.body, fields, c.field)
				}
			}
		})
		t.Run("another team's categories are invisible", func(t *testing.T) {
			for _, m := range []string{"GET", "DELETE"} {
				platentest.ErrorBody(t, srv.Do(t, m, "/api/v1/product-categories/"+mugsUID, globex.Token, nil), 404)
			}
			platentest.ErrorBody(t, srv.Do(t, "PUT", "/api/v1/product-categories/"+mugsUID, globex.Token, map[string]any{"name": "stolen"}), 404)
			platentest.ErrorBody(t, srv.Do(t, "PUT", "/api/v1/product-categories/"+mugsUID, globex.Token, map[string]any{"name": ""}), 404)
			// As a parent it looks exactly like one that does not exist.
			_, fields := platentest.ErrorBody(t, srv.Do(t, "POST", "/api/v1/product-categories", globex.Token, map[string]any{"name": "x", "parent_id": mugsUID}), 400)
			if !reflect.DeepEqual(fields, []string{"parent_id"}) {
				t.Errorf("fields %v", fields)
			}
			if n := len(srv.Do(t, "GET", "/api/v1/product-categories", globex.Token, nil).Object(t)["product_categories"].([]any)); n != 0 {
				t.Errorf("globex lists %d categories", n)
			}
		})
		t.Run("delete: 409 while it has children, then the spec's message", func(t *testing.T) {
			msg, _ := platentest.ErrorBody(t, srv.Do(t, "DELETE", "/api/v1/product-categories/"+mugsUID, acme.Token, nil), 409)
			if msg == "" {
				t.Error("no message")
			}
			r := srv.Do(t, "DELETE", "/api/v1/product-categories/"+bigUID, acme.Token, nil)
			if r.Status != 200 || !reflect.DeepEqual(r.JSON, map[string]any{"message": "Product category successfully deleted", "category_id": bigUID}) {
				t.Fatalf("delete: %d %s", r.Status, r.Raw)
			}
			if r := srv.Do(t, "DELETE", "/api/v1/product-categories/"+mugsUID, acme.Token, nil); r.Status != 200 {
				t.Errorf("delete parent after its child: %d %s", r.Status, r.Raw)
			}
			platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/product-categories/"+mugsUID, acme.Token, nil), 404)
		})
	})
}
