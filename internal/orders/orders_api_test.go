package orders_test

import (
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/platentest"
)

// templateConfig is a valid design document, URL-encoded as the customiser
// sends it.
var templateConfig = url.QueryEscape(`{"version":1,"unit":"mm","width":90,"height":50,"layers":[]}`)

func item(id string) map[string]any {
	return map[string]any{
		"ecommerce_order_item_id": id,
		"ecommerce_variant_id":    "variant-" + id,
		"quantity":                2,
		"price":                   12.5,
		"properties":              map[string]any{"colour": "red", "size": 3},
		"template_config":         templateConfig,
		"thumbnails":              []any{"https://cdn.example.com/" + id + ".png"},
	}
}

func fullOrder(store, orderID string, items ...map[string]any) map[string]any {
	list := make([]any, len(items))
	for i, it := range items {
		list[i] = it
	}
	return map[string]any{
		"store_id":               store,
		"ecommerce_order_id":     orderID,
		"ecommerce_order_number": "#" + orderID,
		"total_price":            27.5,
		"subtotal_price":         25,
		"currency_code":          "EUR",
		"customer": map[string]any{
			"email": "ada@example.com", "ecommerce_customer_id": "c-1",
			"name": "Ada", "surname": "Lovelace", "phone": "+44 20 0000",
		},
		"note": "gift wrap",
		"addresses": []any{map[string]any{
			"type_id": "shipping", "address_1": "1 Analytical St", "address_2": "Flat 2",
			"post_code": "N1 9GU", "city": "London", "county": "Greater London",
			"country_code": "GB", "country_id": 826,
		}},
		"shippings":          []any{map[string]any{"code": "royal-mail", "shipping_price": 2.5}},
		"create_print_files": false,
		"items":              list,
	}
}

// expectFields checks that got holds want's fields with equal JSON values.
func expectFields(t *testing.T, got map[string]any, want map[string]any) {
	t.Helper()
	for k, w := range want {
		if !reflect.DeepEqual(normalise(got[k]), normalise(w)) {
			t.Errorf("%s = %#v, want %#v", k, got[k], w)
		}
	}
}

// normalise turns a Go value into what encoding/json would decode it to.
func normalise(v any) any {
	switch x := v.(type) {
	case int:
		return float64(x)
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = normalise(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalise(e)
		}
		return out
	}
	return v
}

func TestOrderLifecycle(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		body := fullOrder("acme-shop", "1001", item("1001-1"), item("1001-2"))

		created := srv.Do(t, "POST", "/api/v1/orders", acme.Token, body)
		if created.Status != 200 {
			t.Fatalf("create: %d %s", created.Status, created.Raw)
		}
		order := created.Object(t)
		uid, _ := order["uid"].(string)
		if len(uid) != 36 {
			t.Fatalf("uid %q is not a UUID", uid)
		}
		want := map[string]any{}
		for k, v := range body {
			if k != "items" {
				want[k] = v
			}
		}
		expectFields(t, order, want)
		items := order["items"].([]any)
		if len(items) != 2 {
			t.Fatalf("items: %v", items)
		}
		first := items[0].(map[string]any)
		expectFields(t, first, item("1001-1"))
		expectFields(t, first, map[string]any{
			"design_version_id": nil,
			"print":             map[string]any{"status": "received", "url": nil, "error": nil, "size": nil, "sha256": nil, "warnings": []any{}},
		})
		for _, ts := range []string{"created_at", "updated_at"} {
			if s, _ := order[ts].(string); len(s) < 20 || s[len(s)-1] != 'Z' {
				t.Errorf("%s = %q, want RFC 3339 in UTC", ts, s)
			}
		}

		got := srv.Do(t, "GET", "/api/v1/orders/"+uid, acme.Token, nil)
		if got.Status != 200 || !reflect.DeepEqual(got.JSON, created.JSON) {
			t.Fatalf("get differs from create:\n%s\n%s", got.Raw, created.Raw)
		}

		print := srv.Do(t, "GET", "/api/v1/order-items/1001-2/print", acme.Token, nil)
		if print.Status != 200 {
			t.Fatalf("print: %d %s", print.Status, print.Raw)
		}
		if !reflect.DeepEqual(print.JSON, map[string]any{"ecommerce_order_item_id": "1001-2", "status": "received", "url": nil, "error": nil,
			"size": nil, "sha256": nil, "warnings": []any{}}) {
			t.Errorf("print status = %s", print.Raw)
		}

		deleted := srv.Do(t, "DELETE", "/api/v1/orders/"+uid, acme.Token, nil)
		if deleted.Status != 200 || !reflect.DeepEqual(deleted.JSON, map[string]any{"message": "Order successfully deleted", "order_uid": uid}) {
			t.Fatalf("delete: %d %s", deleted.Status, deleted.Raw)
		}
		for _, path := range []string{"/api/v1/orders/" + uid, "/api/v1/order-items/1001-1/print"} {
			platentest.ErrorBody(t, srv.Do(t, "GET", path, acme.Token, nil), 404)
		}
		platentest.ErrorBody(t, srv.Do(t, "DELETE", "/api/v1/orders/"+uid, acme.Token, nil), 404)

		again := srv.Do(t, "POST", "/api/v1/orders", acme.Token, body)
		if again.Status != 200 {
			t.Errorf("re-creating a deleted order's ids: %d %s", again.Status, again.Raw)
		}
	})
}

func TestOrderUpdateSemantics(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		created := srv.Do(t, "POST", "/api/v1/orders", acme.Token, fullOrder("acme-shop", "2001", item("a"), item("b"))).Object(t)
		uid := created["uid"].(string)
		uidOf := func(order map[string]any) map[string]string {
			out := map[string]string{}
			for _, it := range order["items"].([]any) {
				m := it.(map[string]any)
				out[m["ecommerce_order_item_id"].(string)] = m["uid"].(string)
			}
			return out
		}
		before := uidOf(created)

		t.Run("absent fields stay, present replace, null clears", func(t *testing.T) {
			r := srv.Do(t, "PUT", "/api/v1/orders/"+uid, acme.Token, `{"note": null, "total_price": 99.5, "shippings": []}`)
			if r.Status != 200 {
				t.Fatalf("put: %d %s", r.Status, r.Raw)
			}
			o := r.Object(t)
			expectFields(t, o, map[string]any{
				"note": nil, "total_price": 99.5, "shippings": []any{},
				"currency_code": "EUR", "ecommerce_order_number": "#2001",
				"customer":  created["customer"],
				"addresses": created["addresses"],
				"items":     created["items"],
			})
			if o["updated_at"] == created["updated_at"] {
				t.Errorf("updated_at did not change")
			}
		})

		t.Run("items match by ecommerce_order_item_id", func(t *testing.T) {
			changed := item("b")
			changed["quantity"] = 7
			r := srv.Do(t, "PUT", "/api/v1/orders/"+uid, acme.Token, map[string]any{"items": []any{changed, item("c")}})
			if r.Status != 200 {
				t.Fatalf("put: %d %s", r.Status, r.Raw)
			}
			after := uidOf(r.Object(t))
			if _, ok := after["a"]; ok {
				t.Errorf("item a should be gone: %v", after)
			}
			if after["b"] != before["b"] {
				t.Errorf("item b kept its id but got uid %s, had %s", after["b"], before["b"])
			}
			if after["c"] == "" || after["c"] == before["a"] {
				t.Errorf("item c should be new: %v", after)
			}
			items := r.Object(t)["items"].([]any)
			if q := items[0].(map[string]any)["quantity"]; q != 7.0 {
				t.Errorf("b quantity = %v, want 7", q)
			}
			platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/order-items/a/print", acme.Token, nil), 404)
			if r := srv.Do(t, "GET", "/api/v1/order-items/c/print", acme.Token, nil); r.Status != 200 {
				t.Errorf("new item c print: %d", r.Status)
			}
		})

		t.Run("fixed fields are not changed by PUT", func(t *testing.T) {
			r := srv.Do(t, "PUT", "/api/v1/orders/"+uid, acme.Token, `{"store_id":"x","ecommerce_order_id":"y","create_print_files":true}`)
			if r.Status != 200 {
				t.Fatalf("put: %d %s", r.Status, r.Raw)
			}
			expectFields(t, r.Object(t), map[string]any{"store_id": "acme-shop", "ecommerce_order_id": "2001", "create_print_files": false})
		})

		t.Run("bad values are refused and change nothing", func(t *testing.T) {
			before := srv.Do(t, "GET", "/api/v1/orders/"+uid, acme.Token, nil)
			bad := item("d")
			bad["quantity"] = 0
			_, fields := platentest.ErrorBody(t, srv.Do(t, "PUT", "/api/v1/orders/"+uid, acme.Token,
				map[string]any{"note": "changed", "items": []any{bad}}), 400)
			if !reflect.DeepEqual(fields, []string{"items[0].quantity"}) {
				t.Errorf("fields %v", fields)
			}
			_, fields = platentest.ErrorBody(t, srv.Do(t, "PUT", "/api/v1/orders/"+uid, acme.Token, `{"items": []}`), 400)
			if !reflect.DeepEqual(fields, []string{"items"}) {
				t.Errorf("fields %v", fields)
			}
			after := srv.Do(t, "GET", "/api/v1/orders/"+uid, acme.Token, nil)
			if !reflect.DeepEqual(before.JSON, after.JSON) {
				t.Errorf("a refused PUT changed the order:\n%s\n%s", before.Raw, after.Raw)
			}
		})

		t.Run("an item id of another order of the store is a conflict", func(t *testing.T) {
			other := srv.Do(t, "POST", "/api/v1/orders", acme.Token, fullOrder("acme-shop", "2002", item("z"))).Object(t)
			msg, fields := platentest.ErrorBody(t, srv.Do(t, "PUT", "/api/v1/orders/"+uid, acme.Token,
				map[string]any{"items": []any{item("b"), item("z")}}), 409)
			if !reflect.DeepEqual(fields, []string{"items[1].ecommerce_order_item_id"}) {
				t.Errorf("fields %v", fields)
			}
			if want := other["uid"].(string); !contains(msg, want) {
				t.Errorf("message %q does not name order %s", msg, want)
			}
		})
	})
}

func contains(s, sub string) bool {
	return len(sub) > 0 && len(s) >= len(sub) && (s == sub || indexOf(s, sub) >= 0)
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func TestListOrdersPaginates(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		for i := 0; i < 5; i++ {
			id := fmt.Sprint(3000 + i)
			if r := srv.Do(t, "POST", "/api/v1/orders", acme.Token, fullOrder("acme-shop", id, item(id+"-1"))); r.Status != 200 {
				t.Fatalf("create: %s", r.Raw)
			}
		}
		var seen []string
		token := ""
		for page := 0; page < 5; page++ {
			r := srv.Do(t, "GET", "/api/v1/orders?page_size=2&page_token="+url.QueryEscape(token), acme.Token, nil)
			if r.Status != 200 {
				t.Fatalf("list: %d %s", r.Status, r.Raw)
			}
			obj := r.Object(t)
			for _, o := range obj["orders"].([]any) {
				seen = append(seen, o.(map[string]any)["ecommerce_order_id"].(string))
			}
			token = obj["next_page_token"].(string)
			if token == "" {
				break
			}
		}
		if want := []string{"3004", "3003", "3002", "3001", "3000"}; !reflect.DeepEqual(seen, want) {
			t.Errorf("pages gave %v, want %v", seen, want)
		}
		platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/orders?page_token=nonsense", acme.Token, nil), 400)
	})
}

// A page of large orders is cut short by size, and the token goes on.
func TestListPagesAreBoundedBySize(t *testing.T) {
	platentest.EachBackend(t, testListPagesAreBoundedBySize)
}

func testListPagesAreBoundedBySize(t *testing.T, b platentest.Backend) {
	srv := platentest.Start(t, b)
	acme := srv.Bootstrap(t, "acme", "acme-shop")
	big := url.QueryEscape(`{"version":1,"width":10,"height":10,"layers":[],"meta":{"pad":"` + strings.Repeat("x", 1_500_000) + `"}}`)
	for i := 0; i < 4; i++ {
		it := item(fmt.Sprintf("big-%d", i))
		it["template_config"] = big
		if r := srv.Do(t, "POST", "/api/v1/orders", acme.Token, fullOrder("acme-shop", fmt.Sprintf("big-%d", i), it)); r.Status != 200 {
			t.Fatalf("create: %d", r.Status)
		}
	}
	seen, pages, token := 0, 0, ""
	for {
		r := srv.Do(t, "GET", "/api/v1/orders?page_size=500&page_token="+url.QueryEscape(token), acme.Token, nil)
		if r.Status != 200 {
			t.Fatalf("list: %d %s", r.Status, r.Raw[:min(len(r.Raw), 300)])
		}
		obj := r.Object(t)
		seen += len(obj["orders"].([]any))
		pages++
		if token = obj["next_page_token"].(string); token == "" {
			break
		}
	}
	if seen != 4 || pages < 2 {
		t.Errorf("%d orders in %d pages, want 4 in at least 2", seen, pages)
	}
}
