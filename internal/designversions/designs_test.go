package designversions_test

import (
	"fmt"
	"net/url"
	"reflect"
	"sync"
	"testing"

	"github.com/platen-print/platen/internal/platentest"
)

func config(doc string) string { return url.QueryEscape(doc) }

func TestDesignVersions(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		globex := srv.Bootstrap(t, "globex", "globex-shop")
		doc := `{"version":1,"width":210,"height":297,"dpi":300,"surfaces":[{"name":"front","layers":[]}]}`
		body := map[string]any{"design_version_id": "dv-1", "template_config": config(doc), "thumbnails": []any{"https://example.com/t.png"}}

		r := srv.Do(t, "POST", "/api/v1/design-versions", acme.Token, body)
		if r.Status != 200 {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		created := r.Object(t)
		if created["design_version_id"] != "dv-1" || created["template_config"] != body["template_config"] ||
			!reflect.DeepEqual(created["thumbnails"], body["thumbnails"]) || created["created_at"] == nil {
			t.Errorf("created: %v", created)
		}

		t.Run("read it back", func(t *testing.T) {
			if got := srv.Do(t, "GET", "/api/v1/design-versions/dv-1", acme.Token, nil); !reflect.DeepEqual(got.JSON, any(created)) {
				t.Errorf("GET %d %s", got.Status, got.Raw)
			}
		})
		t.Run("the same document again answers the stored version", func(t *testing.T) {
			// Other spelling, same meaning: members reordered, spaces, + for space.
			same := map[string]any{"design_version_id": "dv-1",
				"template_config": config(`{ "surfaces":[{"layers":[],"name":"front"}], "dpi":300, "height":297, "width":210, "version":1 }`)}
			r := srv.Do(t, "POST", "/api/v1/design-versions", acme.Token, same)
			if r.Status != 200 || !reflect.DeepEqual(r.JSON, any(created)) {
				t.Errorf("again: %d %s", r.Status, r.Raw)
			}
		})
		t.Run("another document under the same id is 409", func(t *testing.T) {
			other := map[string]any{"design_version_id": "dv-1", "template_config": config(`{"version":1,"width":210,"height":297,"dpi":150,"layers":[]}`)}
			_, fields := platentest.ErrorBody(t, srv.Do(t, "POST", "/api/v1/design-versions", acme.Token, other), 409)
			if !reflect.DeepEqual(fields, []string{"design_version_id"}) {
				t.Errorf("fields %v", fields)
			}
			if got := srv.Do(t, "GET", "/api/v1/design-versions/dv-1", acme.Token, nil); !reflect.DeepEqual(got.JSON, any(created)) {
				t.Errorf("the version changed: %s", got.Raw)
			}
		})
		t.Run("an id is generated when absent", func(t *testing.T) {
			r := srv.Do(t, "POST", "/api/v1/design-versions", acme.Token, map[string]any{"template_config": config(`{"width":10,"height":10,"layers":[]}`)})
			v := r.Object(t)
			if r.Status != 200 || len(v["design_version_id"].(string)) != 36 || !reflect.DeepEqual(v["thumbnails"], []any{}) {
				t.Errorf("generated: %d %s", r.Status, r.Raw)
			}
		})
		t.Run("bad input", func(t *testing.T) {
			cases := []struct {
				name  string
				body  any
				field string
			}{
				{"no template_config", map[string]any{"design_version_id": "x"}, "template_config"},
				{"not URL-encoded JSON", map[string]any{"template_config": "%zz"}, "template_config"},
				{"an array", map[string]any{"template_config": config(`[1]`)}, "template_config"},
				{"empty id", map[string]any{"design_version_id": "", "template_config": config(`{"width":10,"height":10,"layers":[]}`)}, "design_version_id"},
				{"slash in id", map[string]any{"design_version_id": "a/b", "template_config": config(`{"width":10,"height":10,"layers":[]}`)}, "design_version_id"},
				{"control character", map[string]any{"design_version_id": "a\tb", "template_config": config(`{"width":10,"height":10,"layers":[]}`)}, "design_version_id"},
				{"long id", map[string]any{"design_version_id": string(make([]byte, 256)), "template_config": config(`{"width":10,"height":10,"layers":[]}`)}, "design_version_id"},
				{"number id", `{"design_version_id": 5, "template_config": "%7B%22width%22%3A10%2C%22height%22%3A10%2C%22layers%22%3A%5B%5D%7D"}`, "design_version_id"},
				{"empty thumbnail", map[string]any{"template_config": config(`{"width":10,"height":10,"layers":[]}`), "thumbnails": []any{""}}, "thumbnails[0]"},
			}
			for _, c := range cases {
				_, fields := platentest.ErrorBody(t, srv.Do(t, "POST", "/api/v1/design-versions", acme.Token, c.body), 400)
				if !reflect.DeepEqual(fields, []string{c.field}) {
					t.Errorf("%s: fields %v, want [%s]", c.name, fields, c.field)
				}
			}
		})
		t.Run("another team's versions are invisible and its ids its own", func(t *testing.T) {
			platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/design-versions/dv-1", globex.Token, nil), 404)
			theirs := map[string]any{"design_version_id": "dv-1", "template_config": config(`{"width":10,"height":10,"layers":[],"meta":{"theirs":true}}`)}
			if r := srv.Do(t, "POST", "/api/v1/design-versions", globex.Token, theirs); r.Status != 200 {
				t.Errorf("globex's own dv-1: %d %s", r.Status, r.Raw)
			}
			if got := srv.Do(t, "GET", "/api/v1/design-versions/dv-1", acme.Token, nil); !reflect.DeepEqual(got.JSON, any(created)) {
				t.Errorf("acme's dv-1 changed: %s", got.Raw)
			}
		})
		t.Run("list pages through the team's versions", func(t *testing.T) {
			for i := range 3 {
				srv.Do(t, "POST", "/api/v1/design-versions", acme.Token, map[string]any{
					"design_version_id": fmt.Sprint("page-", i), "template_config": config(fmt.Sprintf(`{"width":10,"height":10,"layers":[],"meta":{"n":%d}}`, i))})
			}
			seen := map[string]bool{}
			token := ""
			for range 10 {
				page := srv.Do(t, "GET", "/api/v1/design-versions?page_size=2&page_token="+token, acme.Token, nil).Object(t)
				for _, v := range page["design_versions"].([]any) {
					seen[v.(map[string]any)["design_version_id"].(string)] = true
				}
				if token = page["next_page_token"].(string); token == "" {
					break
				}
			}
			if len(seen) != 5 || !seen["dv-1"] || !seen["page-2"] {
				t.Errorf("listed %v", seen)
			}
		})
	})
}

func TestOrderItemsRegisterDesignVersions(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		a, b2 := config(`{"width":10,"height":10,"layers":[],"meta":{"design":"a"}}`), config(`{"width":10,"height":10,"layers":[],"meta":{"design":"b"}}`)

		r := srv.Do(t, "POST", "/api/v1/orders", acme.Token, platentest.OrderBody(acme.StoreID, "o-1", platentest.Items(
			map[string]any{"design_version_id": "item-dv", "template_config": a},
			map[string]any{"design_version_id": "item-dv", "template_config": a},
			map[string]any{"template_config": b2})))
		if r.Status != 200 {
			t.Fatalf("order: %d %s", r.Status, r.Raw)
		}
		v := srv.Do(t, "GET", "/api/v1/design-versions/item-dv", acme.Token, nil)
		if v.Status != 200 || v.Object(t)["template_config"] != a {
			t.Fatalf("registered version: %d %s", v.Status, v.Raw)
		}

		t.Run("another document under a registered id refuses the whole order", func(t *testing.T) {
			body := platentest.OrderBody(acme.StoreID, "o-2", platentest.Items(
				map[string]any{"template_config": b2},
				map[string]any{"design_version_id": "item-dv", "template_config": b2}))
			_, fields := platentest.ErrorBody(t, srv.Do(t, "POST", "/api/v1/orders", acme.Token, body), 409)
			if !reflect.DeepEqual(fields, []string{"items[1].design_version_id"}) {
				t.Errorf("fields %v", fields)
			}
			platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/order-items/o-2-1/print", acme.Token, nil), 404)
		})
		t.Run("two items of one order disagreeing on a new version", func(t *testing.T) {
			body := platentest.OrderBody(acme.StoreID, "o-3", platentest.Items(
				map[string]any{"design_version_id": "fresh", "template_config": a},
				map[string]any{"design_version_id": "fresh", "template_config": b2}))
			_, fields := platentest.ErrorBody(t, srv.Do(t, "POST", "/api/v1/orders", acme.Token, body), 409)
			if !reflect.DeepEqual(fields, []string{"items[1].design_version_id"}) {
				t.Errorf("fields %v", fields)
			}
			platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/design-versions/fresh", acme.Token, nil), 404)
		})
		t.Run("a PUT registers new versions and keeps old ones immutable", func(t *testing.T) {
			uid := r.Object(t)["uid"].(string)
			put := platentest.OrderBody(acme.StoreID, "o-1", platentest.Items(map[string]any{"design_version_id": "put-dv", "template_config": b2}))
			if r := srv.Do(t, "PUT", "/api/v1/orders/"+uid, acme.Token, map[string]any{"items": put["items"]}); r.Status != 200 {
				t.Fatalf("PUT: %d %s", r.Status, r.Raw)
			}
			if v := srv.Do(t, "GET", "/api/v1/design-versions/put-dv", acme.Token, nil); v.Status != 200 {
				t.Errorf("PUT did not register: %d %s", v.Status, v.Raw)
			}
			put = platentest.OrderBody(acme.StoreID, "o-1", platentest.Items(map[string]any{"design_version_id": "put-dv", "template_config": a}))
			_, fields := platentest.ErrorBody(t, srv.Do(t, "PUT", "/api/v1/orders/"+uid, acme.Token, map[string]any{"items": put["items"]}), 409)
			if !reflect.DeepEqual(fields, []string{"items[0].design_version_id"}) {
				t.Errorf("fields %v", fields)
			}
		})
		t.Run("concurrent orders registering one new version", func(t *testing.T) {
			const n = 8
			statuses := make([]int, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					doc := a
					if i%2 == 1 {
						doc = b2
					}
					statuses[i] = srv.Do(t, "POST", "/api/v1/orders", acme.Token, platentest.OrderBody(acme.StoreID, fmt.Sprint("race-", i),
						platentest.Items(map[string]any{"design_version_id": "raced", "template_config": doc}))).Status
				}()
			}
			wg.Wait()
			stored := srv.Do(t, "GET", "/api/v1/design-versions/raced", acme.Token, nil).Object(t)["template_config"]
			for i, s := range statuses {
				same := (i%2 == 0) == (stored == a)
				if same && s != 200 || !same && s != 409 {
					t.Errorf("order %d: %d (stored %v)", i, s, stored)
				}
			}
		})
	})
}
