package orders_test

// Black-box tests of bad input to the Family A order endpoints, through the
// real HTTP server. They are written from the API documents only, not from
// the implementation:
//
//   - Errors: 400 for malformed JSON, wrong type, missing required field,
//     out-of-range value, a template_config that does not URL-decode to a
//     JSON object; the error body {"code", "message", "details"} with a
//     BadRequest detail whose field violations name the JSON path; 401, 403,
//     404, 409, 413 as the table says; client input never causes a 500.
//   - Tokens and teams: a revoked token gets 401 within 5 seconds; a team never
//     sees, changes or learns of another team's data.
//   - Uniqueness: ecommerce_order_id and ecommerce_order_item_id are unique
//     per store.
//   - Types are JSON types; required fields are required.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
)

// biConfig is a URL-encoded design document (a JSON object).
var biConfig = url.QueryEscape(`{"version":1,"unit":"mm","width":100,"height":150,"surfaces":[{"name":"front","layers":[{"type":"rect","x":0,"y":0,"width":100,"height":150,"fill":"#ffffff"}]}]}`)

// biLedger records what the test created and what only failed requests named,
// so the final check can prove that no failing request left anything behind.
type biLedger struct {
	mu sync.Mutex
	// created maps the uid of each order created on purpose to its
	// ecommerce_order_id.
	created map[string]string
	// unexpected maps the uid of each order a bad request created by mistake
	// to the request's description (already reported where it happened).
	unexpected map[string]string
	// goodItems are item ids of orders that were created.
	goodItems map[string]bool
	// failedItems are item ids that appeared in failed requests.
	failedItems map[string]bool
}

func newBILedger() *biLedger {
	return &biLedger{created: map[string]string{}, unexpected: map[string]string{},
		goodItems: map[string]bool{}, failedItems: map[string]bool{}}
}

func (l *biLedger) addCreated(uid, orderID string, itemIDs []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.created[uid] = orderID
	for _, id := range itemIDs {
		l.goodItems[id] = true
	}
}

func (l *biLedger) addFailed(itemIDs []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, id := range itemIDs {
		l.failedItems[id] = true
	}
}

func (l *biLedger) addUnexpected(uid, what string, itemIDs []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.unexpected[uid] = what
	for _, id := range itemIDs {
		l.goodItems[id] = true
	}
}

// biSeq makes every id of the test unique.
var biSeq atomic.Int64

func biUniq(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, biSeq.Add(1))
}

// biOrder is a complete, valid create body for store with unique ids.
func biOrder(store string) map[string]any {
	p := biUniq("bi")
	return map[string]any{
		"store_id":               store,
		"ecommerce_order_id":     p + "-order",
		"ecommerce_order_number": "#" + p,
		"total_price":            30.0,
		"subtotal_price":         25.5,
		"currency_code":          "EUR",
		"customer": map[string]any{
			"email":                 "ada@example.com",
			"ecommerce_customer_id": "cust-1",
			"name":                  "Ada",
			"surname":               "Lovelace",
			"phone":                 "+44 20 7946 0000",
		},
		"note": "bad-input test",
		"items": []any{map[string]any{
			"ecommerce_order_item_id": p + "-item-1",
			"ecommerce_variant_id":    "variant-1",
			"quantity":                2,
			"price":                   12.75,
			"properties":              map[string]any{"color": "red"},
			"template_config":         biConfig,
			"thumbnails":              []any{"https://example.com/thumb.png"},
		}},
		"addresses": []any{map[string]any{
			"type_id":      "shipping",
			"address_1":    "1 High Street",
			"address_2":    "Flat 2",
			"post_code":    "AB1 2CD",
			"city":         "London",
			"county":       "Greater London",
			"country_code": "GB",
			"country_id":   826,
		}},
		"shippings": []any{map[string]any{
			"code":           "standard",
			"shipping_price": 4.5,
		}},
		"create_print_files": false,
	}
}

func biItem(o map[string]any, i int) map[string]any {
	return o["items"].([]any)[i].(map[string]any)
}

func biAddr0(o map[string]any) map[string]any { return o["addresses"].([]any)[0].(map[string]any) }
func biShip0(o map[string]any) map[string]any { return o["shippings"].([]any)[0].(map[string]any) }

// biItemIDs lists the ecommerce_order_item_id values of a body (whatever their
// shape after a mutation).
func biItemIDs(o map[string]any) []string {
	var out []string
	items, _ := o["items"].([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		if id, ok := m["ecommerce_order_item_id"].(string); ok {
			out = append(out, id)
		}
	}
	return out
}

func biJSON(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	return string(raw)
}

// biHarness is what every subtest shares on one backend.
type biHarness struct {
	srv    *platentest.Server
	acme   platentest.Tenant
	globex platentest.Tenant
	led    *biLedger
}

// create posts a body that must succeed and records it.
func (h *biHarness) create(t *testing.T, token string, body map[string]any, headers ...string) map[string]any {
	t.Helper()
	r := h.srv.Do(t, "POST", "/api/v1/orders", token, body, headers...)
	if r.Status != 200 {
		h.led.addFailed(biItemIDs(body))
		t.Fatalf("create valid order: status %d, want 200; body %s", r.Status, r.Raw)
	}
	obj := r.Object(t)
	uid, _ := obj["uid"].(string)
	if uid == "" {
		t.Fatalf("create response has no uid: %s", r.Raw)
	}
	h.led.addCreated(uid, body["ecommerce_order_id"].(string), biItemIDs(body))
	return obj
}

// reject posts a create body (a map, or a raw string with its item ids
// given) that must fail with status; it returns the error's message and
// field violations.
func (h *biHarness) reject(t *testing.T, token string, body any, ids []string, status int, what string, headers ...string) (string, []string) {
	t.Helper()
	r := h.srv.Do(t, "POST", "/api/v1/orders", token, body, headers...)
	if r.Status == 200 {
		uid, _ := r.Object(t)["uid"].(string)
		h.led.addUnexpected(uid, what, ids)
		t.Fatalf("%s: POST /api/v1/orders answered 200 (created order %s), want %d", what, uid, status)
	}
	h.led.addFailed(ids)
	if r.Status >= 500 {
		t.Fatalf("%s: status %d: client input must never cause a 5xx; body %s", what, r.Status, r.Raw)
	}
	return platentest.ErrorBody(t, r, status)
}

func biWantField(t *testing.T, fields []string, path string) {
	t.Helper()
	if !slices.Contains(fields, path) {
		t.Errorf("field violations %q do not name %q", fields, path)
	}
}

// biWantFieldOrChild accepts path itself or a path inside it
// ("items[0].thumbnails[0]" for "items[0].thumbnails"): a wrong-typed value
// may be reported at the element that holds it.
func biWantFieldOrChild(t *testing.T, fields []string, path string) {
	t.Helper()
	for _, f := range fields {
		if f == path || strings.HasPrefix(f, path+"[") || strings.HasPrefix(f, path+".") {
			return
		}
	}
	t.Errorf("field violations %q do not name %q (or a path inside it)", fields, path)
}

func TestBadInput(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		h := &biHarness{
			srv:    srv,
			acme:   srv.Bootstrap(t, "acme", "acme-shop"),
			globex: srv.Bootstrap(t, "globex", "globex-shop"),
			led:    newBILedger(),
		}

		// Every subtest uses ids of its own, so they run in parallel on the
		// shared server; the group waits for all of them before the final
		// no-partial-order check.
		t.Run("group", func(t *testing.T) {
			t.Run("Controls", func(t *testing.T) { t.Parallel(); biControls(t, h) })
			t.Run("MalformedJSON", func(t *testing.T) { t.Parallel(); biMalformedJSON(t, h) })
			t.Run("WrongType", func(t *testing.T) { t.Parallel(); biWrongType(t, h) })
			t.Run("MissingRequired", func(t *testing.T) { t.Parallel(); biMissingRequired(t, h) })
			t.Run("OutOfRangeQuantity", func(t *testing.T) { t.Parallel(); biQuantityRange(t, h) })
			t.Run("TemplateConfig", func(t *testing.T) { t.Parallel(); biTemplateConfig(t, h) })
			t.Run("AddressTypeID", func(t *testing.T) { t.Parallel(); biAddressType(t, h) })
			t.Run("TooLarge", func(t *testing.T) { t.Parallel(); biTooLarge(t, h) })
			t.Run("ForeignStore", func(t *testing.T) { t.Parallel(); biForeignStore(t, h) })
			t.Run("ForeignOrder", func(t *testing.T) { t.Parallel(); biForeignOrder(t, h) })
			t.Run("Duplicates", func(t *testing.T) { t.Parallel(); biDuplicates(t, h) })
			t.Run("IdempotencyKeyReuse", func(t *testing.T) { t.Parallel(); biIdempotencyReuse(t, h) })
			t.Run("BadUpdate", func(t *testing.T) { t.Parallel(); biBadUpdate(t, h) })
			t.Run("Auth", func(t *testing.T) { t.Parallel(); biAuth(t, h) })
		})

		t.Run("NoPartialOrder", func(t *testing.T) { biNoPartialOrder(t, h) })
	})
}

// biControls shows that the valid body the other cases break is itself
// accepted, so every rejection below is caused by the one change made.
func biControls(t *testing.T, h *biHarness) {
	t.Run("valid order", func(t *testing.T) {
		o := biOrder("acme-shop")
		got := h.create(t, h.acme.Token, o)
		if got["ecommerce_order_id"] != o["ecommerce_order_id"] {
			t.Errorf("ecommerce_order_id %v, want %v", got["ecommerce_order_id"], o["ecommerce_order_id"])
		}
		items, _ := got["items"].([]any)
		if len(items) != 1 {
			t.Fatalf("items %v, want one", got["items"])
		}
		it, _ := items[0].(map[string]any)
		if it["ecommerce_order_item_id"] != biItem(o, 0)["ecommerce_order_item_id"] {
			t.Errorf("items[0].ecommerce_order_item_id %v, want %v", it["ecommerce_order_item_id"], biItem(o, 0)["ecommerce_order_item_id"])
		}
		if uid, _ := it["uid"].(string); uid == "" {
			t.Errorf("items[0].uid missing: %v", it)
		}
	})
	t.Run("only required fields", func(t *testing.T) {
		o := biOrder("acme-shop")
		for _, k := range []string{"ecommerce_order_number", "total_price", "subtotal_price", "currency_code",
			"customer", "note", "addresses", "shippings", "create_print_files"} {
			delete(o, k)
		}
		for _, k := range []string{"price", "properties"} {
			delete(biItem(o, 0), k)
		}
		h.create(t, h.acme.Token, o)
	})
	t.Run("unknown fields ignored", func(t *testing.T) {
		o := biOrder("acme-shop")
		o["no_such_field"] = map[string]any{"x": 1}
		biItem(o, 0)["another_unknown"] = "y"
		h.create(t, h.acme.Token, o)
	})
	t.Run("minimal template_config object", func(t *testing.T) {
		o := biOrder("acme-shop")
		biItem(o, 0)["template_config"] = url.QueryEscape(`{"width":10,"height":10,"layers":[]}`)
		h.create(t, h.acme.Token, o)
	})
}

func biMalformedJSON(t *testing.T, h *biHarness) {
	o := biOrder("acme-shop")
	valid := biJSON(t, o)
	ids := biItemIDs(o)
	cases := []struct{ name, body string }{
		{"truncated", valid[:len(valid)/2]},
		{"truncated before closing brace", valid[:len(valid)-1]},
		{"trailing garbage", valid + " garbage"},
		{"trailing second object", valid + valid},
		{"array", `[]`},
		{"array of order", "[" + valid + "]"},
		{"string", `"x"`},
		{"number", `42`},
		{"not json", `store_id=acme-shop`},
		{"single quotes", strings.ReplaceAll(valid, `"`, `'`)},
		{"trailing comma", valid[:len(valid)-1] + ",}"},
		{"empty body", ``},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h.reject(t, h.acme.Token, c.body, ids, 400, "malformed JSON ("+c.name+")")
		})
	}
}

func biWrongType(t *testing.T, h *biHarness) {
	cases := []struct {
		name   string
		mutate func(o map[string]any)
		field  string
	}{
		{"quantity as word", func(o map[string]any) { biItem(o, 0)["quantity"] = "two" }, "items[0].quantity"},
		{"quantity as numeric string", func(o map[string]any) { biItem(o, 0)["quantity"] = "2" }, "items[0].quantity"},
		{"quantity 1.5", func(o map[string]any) { biItem(o, 0)["quantity"] = 1.5 }, "items[0].quantity"},
		{"quantity true", func(o map[string]any) { biItem(o, 0)["quantity"] = true }, "items[0].quantity"},
		{"price as word", func(o map[string]any) { biItem(o, 0)["price"] = "cheap" }, "items[0].price"},
		{"price as numeric string", func(o map[string]any) { biItem(o, 0)["price"] = "12.75" }, "items[0].price"},
		{"total_price as string", func(o map[string]any) { o["total_price"] = "30.00" }, "total_price"},
		{"store_id as number", func(o map[string]any) { o["store_id"] = 42 }, "store_id"},
		{"ecommerce_order_id as number", func(o map[string]any) { o["ecommerce_order_id"] = 1001 }, "ecommerce_order_id"},
		{"items as object", func(o map[string]any) { o["items"] = biItem(o, 0) }, "items"},
		{"items as string", func(o map[string]any) { o["items"] = "x" }, "items"},
		{"thumbnails as string", func(o map[string]any) { biItem(o, 0)["thumbnails"] = "https://example.com/t.png" }, "items[0].thumbnails"},
		{"thumbnails of numbers", func(o map[string]any) { biItem(o, 0)["thumbnails"] = []any{1} }, "items[0].thumbnails"},
		{"template_config as object", func(o map[string]any) { biItem(o, 0)["template_config"] = map[string]any{"version": 1} }, "items[0].template_config"},
		{"properties as string", func(o map[string]any) { biItem(o, 0)["properties"] = "red" }, "items[0].properties"},
		{"create_print_files yes", func(o map[string]any) { o["create_print_files"] = "yes" }, "create_print_files"},
		{"create_print_files 1", func(o map[string]any) { o["create_print_files"] = 1 }, "create_print_files"},
		{"customer as string", func(o map[string]any) { o["customer"] = "Ada Lovelace" }, "customer"},
		{"customer email as number", func(o map[string]any) { o["customer"].(map[string]any)["email"] = 7 }, "customer.email"},
		{"addresses as object", func(o map[string]any) { o["addresses"] = biAddr0(o) }, "addresses"},
		{"country_id as word", func(o map[string]any) { biAddr0(o)["country_id"] = "GB" }, "addresses[0].country_id"},
		{"country_id as numeric string", func(o map[string]any) { biAddr0(o)["country_id"] = "826" }, "addresses[0].country_id"},
		{"shipping_price as string", func(o map[string]any) { biShip0(o)["shipping_price"] = "4.50" }, "shippings[0].shipping_price"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := biOrder("acme-shop")
			ids := biItemIDs(o)
			c.mutate(o)
			_, fields := h.reject(t, h.acme.Token, o, ids, 400, "wrong type ("+c.name+")")
			biWantFieldOrChild(t, fields, c.field)
		})
	}
}

func biMissingRequired(t *testing.T, h *biHarness) {
	cases := []struct {
		field  string
		remove func(o map[string]any)
	}{
		{"store_id", func(o map[string]any) { delete(o, "store_id") }},
		{"ecommerce_order_id", func(o map[string]any) { delete(o, "ecommerce_order_id") }},
		{"items", func(o map[string]any) { delete(o, "items") }},
		{"items[0].ecommerce_order_item_id", func(o map[string]any) { delete(biItem(o, 0), "ecommerce_order_item_id") }},
		{"items[0].ecommerce_variant_id", func(o map[string]any) { delete(biItem(o, 0), "ecommerce_variant_id") }},
		{"items[0].quantity", func(o map[string]any) { delete(biItem(o, 0), "quantity") }},
		{"items[0].template_config", func(o map[string]any) { delete(biItem(o, 0), "template_config") }},
		{"items[0].thumbnails", func(o map[string]any) { delete(biItem(o, 0), "thumbnails") }},
		{"addresses[0].type_id", func(o map[string]any) { delete(biAddr0(o), "type_id") }},
		{"addresses[0].address_1", func(o map[string]any) { delete(biAddr0(o), "address_1") }},
		{"addresses[0].post_code", func(o map[string]any) { delete(biAddr0(o), "post_code") }},
		{"addresses[0].city", func(o map[string]any) { delete(biAddr0(o), "city") }},
		{"addresses[0].country_code", func(o map[string]any) { delete(biAddr0(o), "country_code") }},
		{"shippings[0].code", func(o map[string]any) { delete(biShip0(o), "code") }},
		{"shippings[0].shipping_price", func(o map[string]any) { delete(biShip0(o), "shipping_price") }},
	}
	for _, c := range cases {
		t.Run(c.field, func(t *testing.T) {
			o := biOrder("acme-shop")
			ids := biItemIDs(o)
			c.remove(o)
			_, fields := h.reject(t, h.acme.Token, o, ids, 400, "missing "+c.field)
			biWantField(t, fields, c.field)
		})
	}
	// The path names the element that lacks the field, not always the first.
	t.Run("items[1].quantity", func(t *testing.T) {
		o := biOrder("acme-shop")
		second := map[string]any{}
		for k, v := range biItem(o, 0) {
			second[k] = v
		}
		second["ecommerce_order_item_id"] = biUniq("bi-second")
		delete(second, "quantity")
		o["items"] = append(o["items"].([]any), second)
		_, fields := h.reject(t, h.acme.Token, o, biItemIDs(o), 400, "missing items[1].quantity")
		biWantField(t, fields, "items[1].quantity")
	})
}

func biQuantityRange(t *testing.T, h *biHarness) {
	for _, q := range []int{0, -3} {
		t.Run(fmt.Sprint(q), func(t *testing.T) {
			o := biOrder("acme-shop")
			biItem(o, 0)["quantity"] = q
			_, fields := h.reject(t, h.acme.Token, o, biItemIDs(o), 400, fmt.Sprintf("quantity %d", q))
			biWantField(t, fields, "items[0].quantity")
		})
	}
}

func biTemplateConfig(t *testing.T, h *biHarness) {
	cases := []struct{ name, config string }{
		{"not json", "not json"},
		{"bad escape", "%ZZ"},
		{"encoded array", "%5B1%5D"},
		{"plain word", "hello"},
		{"encoded string", url.QueryEscape(`"design"`)},
		{"encoded number", url.QueryEscape(`42`)},
		{"encoded null", url.QueryEscape(`null`)},
		{"encoded truncated object", url.QueryEscape(`{"version":1`)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := biOrder("acme-shop")
			biItem(o, 0)["template_config"] = c.config
			_, fields := h.reject(t, h.acme.Token, o, biItemIDs(o), 400, "template_config "+c.config)
			biWantField(t, fields, "items[0].template_config")
		})
	}
}

func biAddressType(t *testing.T, h *biHarness) {
	for _, v := range []string{"office", "Shipping", ""} {
		t.Run(fmt.Sprintf("%q", v), func(t *testing.T) {
			o := biOrder("acme-shop")
			biAddr0(o)["type_id"] = v
			_, fields := h.reject(t, h.acme.Token, o, biItemIDs(o), 400, fmt.Sprintf("type_id %q", v))
			biWantField(t, fields, "addresses[0].type_id")
		})
	}
}

func biTooLarge(t *testing.T, h *biHarness) {
	o := biOrder("acme-shop")
	o["note"] = strings.Repeat("n", 9<<20) // body over 8 MiB
	h.reject(t, h.acme.Token, o, biItemIDs(o), 413, "body over 8 MiB")
}

func biForeignStore(t *testing.T, h *biHarness) {
	teamToken := h.srv.TeamToken(t, h.acme.TeamID)
	cases := []struct{ name, token, store string }{
		{"other team's store, store token", h.acme.Token, "globex-shop"},
		{"other team's store, team token", teamToken, "globex-shop"},
		{"store that exists nowhere, store token", h.acme.Token, "nowhere-shop"},
		{"store that exists nowhere, team token", teamToken, "nowhere-shop"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := biOrder(c.store)
			h.reject(t, c.token, o, biItemIDs(o), 403, "create in "+c.store)
		})
	}
	for _, store := range []string{"globex-shop", "nowhere-shop"} {
		t.Run("list "+store, func(t *testing.T) {
			r := h.srv.Do(t, "GET", "/api/v1/orders?store_id="+store, h.acme.Token, nil)
			platentest.ErrorBody(t, r, 403)
		})
	}
}

func biForeignOrder(t *testing.T, h *biHarness) {
	o := biOrder("globex-shop")
	created := h.srv.Do(t, "POST", "/api/v1/orders", h.globex.Token, o)
	if created.Status != 200 {
		t.Fatalf("globex create: status %d; body %s", created.Status, created.Raw)
	}
	uid, _ := created.Object(t)["uid"].(string)
	itemID := biItem(o, 0)["ecommerce_order_item_id"].(string)

	before := h.srv.Do(t, "GET", "/api/v1/orders/"+uid, h.globex.Token, nil)
	if before.Status != 200 {
		t.Fatalf("globex GET own order: status %d; body %s", before.Status, before.Raw)
	}
	globexPrint := h.srv.Do(t, "GET", "/api/v1/order-items/"+url.PathEscape(itemID)+"/print", h.globex.Token, nil)
	if globexPrint.Status != 200 {
		t.Fatalf("globex GET own item print: status %d; body %s", globexPrint.Status, globexPrint.Raw)
	}

	update := map[string]any{"note": "hijacked", "items": []any{map[string]any{
		"ecommerce_order_item_id": itemID, "ecommerce_variant_id": "variant-x", "quantity": 99,
		"template_config": biConfig, "thumbnails": []any{"https://example.com/other.png"},
	}}}
	cases := []struct {
		method, path string
		body         any
	}{
		{"GET", "/api/v1/orders/" + uid, nil},
		{"PUT", "/api/v1/orders/" + uid, update},
		{"DELETE", "/api/v1/orders/" + uid, nil},
		{"GET", "/api/v1/order-items/" + url.PathEscape(itemID) + "/print", nil},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			r := h.srv.Do(t, c.method, c.path, h.acme.Token, c.body)
			msg, _ := platentest.ErrorBody(t, r, 404)
			if strings.Contains(string(r.Raw), "globex") {
				t.Errorf("404 body leaks the other team: %s", msg)
			}
		})
	}
	// Naming another team's store in ?store_id= is the API's 403 row:
	// "a store_id not assigned to the caller's team (whether or not it
	// exists)"; the answer is the same for a store that exists nowhere.
	for _, store := range []string{"globex-shop", "nowhere-shop"} {
		r := h.srv.Do(t, "GET", "/api/v1/order-items/"+url.PathEscape(itemID)+"/print?store_id="+store, h.acme.Token, nil)
		platentest.ErrorBody(t, r, 403)
	}
	t.Run("unknown order uid", func(t *testing.T) {
		for _, m := range []string{"GET", "PUT", "DELETE"} {
			var body any
			if m == "PUT" {
				body = map[string]any{"note": "x"}
			}
			r := h.srv.Do(t, m, "/api/v1/orders/0b0e8d0c-7f43-4f7b-9d0a-6f5c1a2b3c4d", h.acme.Token, body)
			platentest.ErrorBody(t, r, 404)
		}
	})

	t.Run("globex order unchanged", func(t *testing.T) {
		after := h.srv.Do(t, "GET", "/api/v1/orders/"+uid, h.globex.Token, nil)
		if after.Status != 200 {
			t.Fatalf("globex GET own order after acme's attempts: status %d; body %s", after.Status, after.Raw)
		}
		if !reflect.DeepEqual(before.JSON, after.JSON) {
			t.Errorf("globex order changed by acme's requests:\nbefore %s\nafter  %s", before.Raw, after.Raw)
		}
		p := h.srv.Do(t, "GET", "/api/v1/order-items/"+url.PathEscape(itemID)+"/print", h.globex.Token, nil)
		if p.Status != 200 {
			t.Errorf("globex item print after acme's attempts: status %d; body %s", p.Status, p.Raw)
		}
	})
}

func biDuplicates(t *testing.T, h *biHarness) {
	first := biOrder("acme-shop")
	existing := h.create(t, h.acme.Token, first)
	existingUID := existing["uid"].(string)
	firstItem := biItem(first, 0)["ecommerce_order_item_id"].(string)

	t.Run("same ecommerce_order_id", func(t *testing.T) {
		o := biOrder("acme-shop")
		o["ecommerce_order_id"] = first["ecommerce_order_id"]
		msg, _ := h.reject(t, h.acme.Token, o, biItemIDs(o), 409, "duplicate ecommerce_order_id")
		if !strings.Contains(msg, existingUID) {
			t.Errorf("409 message %q does not name the existing order uid %s", msg, existingUID)
		}
	})
	t.Run("same ecommerce_order_item_id in another order", func(t *testing.T) {
		o := biOrder("acme-shop")
		biItem(o, 0)["ecommerce_order_item_id"] = firstItem
		// The repeated id belongs to the existing order, so it is not a
		// failed-only id.
		h.reject(t, h.acme.Token, o, nil, 409, "duplicate ecommerce_order_item_id")
	})
	t.Run("same item id twice in one request", func(t *testing.T) {
		o := biOrder("acme-shop")
		second := map[string]any{}
		for k, v := range biItem(o, 0) {
			second[k] = v
		}
		o["items"] = append(o["items"].([]any), second)
		_, fields := h.reject(t, h.acme.Token, o, biItemIDs(o), 400, "item id twice in one request")
		if !slices.Contains(fields, "items[1].ecommerce_order_item_id") && !slices.Contains(fields, "items[0].ecommerce_order_item_id") {
			t.Errorf("field violations %q name neither items[0] nor items[1].ecommerce_order_item_id", fields)
		}
	})
	t.Run("existing order unchanged", func(t *testing.T) {
		r := h.srv.Do(t, "GET", "/api/v1/orders/"+existingUID, h.acme.Token, nil)
		if r.Status != 200 {
			t.Fatalf("GET existing order: status %d; body %s", r.Status, r.Raw)
		}
		got := r.Object(t)
		items, _ := got["items"].([]any)
		if len(items) != 1 {
			t.Fatalf("existing order items %s, want exactly its one item", biJSON(t, got["items"]))
		}
		it, _ := items[0].(map[string]any)
		if it["ecommerce_order_item_id"] != firstItem || it["ecommerce_variant_id"] != "variant-1" || it["quantity"] != 2.0 {
			t.Errorf("existing item changed: %s", biJSON(t, it))
		}
	})
}

func biIdempotencyReuse(t *testing.T, h *biHarness) {
	key := biUniq("idem-key")
	o := biOrder("acme-shop")
	first := h.create(t, h.acme.Token, o, "Idempotency-Key", key)

	t.Run("same body replays", func(t *testing.T) {
		r := h.srv.Do(t, "POST", "/api/v1/orders", h.acme.Token, o, "Idempotency-Key", key)
		if r.Status != 200 {
			t.Fatalf("replay: status %d, want 200 (the first response); body %s", r.Status, r.Raw)
		}
		if uid := r.Object(t)["uid"]; uid != first["uid"] {
			t.Errorf("replay uid %v, want the first response's %v", uid, first["uid"])
		}
	})
	t.Run("other body", func(t *testing.T) {
		other := biOrder("acme-shop")
		h.reject(t, h.acme.Token, other, biItemIDs(other), 409, "Idempotency-Key reused with another body", "Idempotency-Key", key)
	})
}

// biBadUpdate sends bad PUT bodies to an order of acme's own and checks
// that each is refused and leaves the order as it was.
func biBadUpdate(t *testing.T, h *biHarness) {
	o := biOrder("acme-shop")
	uid := h.create(t, h.acme.Token, o)["uid"].(string)
	path := "/api/v1/orders/" + uid
	before := h.srv.Do(t, "GET", path, h.acme.Token, nil)
	if before.Status != 200 {
		t.Fatalf("GET own order: status %d; body %s", before.Status, before.Raw)
	}
	newItem := func(mut func(m map[string]any)) map[string]any {
		m := map[string]any{
			"ecommerce_order_item_id": biItem(o, 0)["ecommerce_order_item_id"],
			"ecommerce_variant_id":    "variant-1",
			"quantity":                5,
			"template_config":         biConfig,
			"thumbnails":              []any{"https://example.com/thumb.png"},
		}
		mut(m)
		return map[string]any{"note": "changed", "items": []any{m}}
	}
	cases := []struct {
		name  string
		body  any
		field string
	}{
		{"truncated", `{"note": "x"`, ""},
		{"not an object", `[]`, ""},
		{"quantity as string", newItem(func(m map[string]any) { m["quantity"] = "five" }), "items[0].quantity"},
		{"quantity 0", newItem(func(m map[string]any) { m["quantity"] = 0 }), "items[0].quantity"},
		{"missing template_config", newItem(func(m map[string]any) { delete(m, "template_config") }), "items[0].template_config"},
		{"template_config not json", newItem(func(m map[string]any) { m["template_config"] = "hello" }), "items[0].template_config"},
		{"total_price as string", map[string]any{"total_price": "ten"}, "total_price"},
		{"address type office", map[string]any{"addresses": []any{map[string]any{
			"type_id": "office", "address_1": "1 High Street", "post_code": "AB1 2CD", "city": "London", "country_code": "GB",
		}}}, "addresses[0].type_id"},
		{"shipping without price", map[string]any{"shippings": []any{map[string]any{"code": "express"}}}, "shippings[0].shipping_price"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := h.srv.Do(t, "PUT", path, h.acme.Token, c.body)
			_, fields := platentest.ErrorBody(t, r, 400)
			if c.field != "" {
				biWantField(t, fields, c.field)
			}
		})
	}
	t.Run("order unchanged", func(t *testing.T) {
		after := h.srv.Do(t, "GET", path, h.acme.Token, nil)
		if !reflect.DeepEqual(before.JSON, after.JSON) {
			t.Errorf("failed updates changed the order:\nbefore %s\nafter  %s", before.Raw, after.Raw)
		}
	})
}

func biAuth(t *testing.T, h *biHarness) {
	cases := []struct {
		name    string
		headers []string
	}{
		{"no token", nil},
		{"Bearer wrong", []string{"Authorization", "Bearer wrong"}},
		{"Bearer empty", []string{"Authorization", "Bearer "}},
		{"Basic abc", []string{"Authorization", "Basic abc"}},
		{"token without scheme", []string{"Authorization", h.acme.Token}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := biOrder("acme-shop")
			h.reject(t, "", o, biItemIDs(o), 401, "create with "+c.name, c.headers...)
			r := h.srv.Do(t, "GET", "/api/v1/orders?store_id=acme-shop", "", nil, c.headers...)
			platentest.ErrorBody(t, r, 401)
		})
	}

	t.Run("revoked token", func(t *testing.T) {
		ctx := context.Background()
		token, _, err := h.srv.DB().IssueToken(ctx, h.acme.TeamID, nil, "x")
		if err != nil {
			t.Fatalf("issue token: %v", err)
		}
		// The token works before it is revoked (and any cache now holds it).
		if r := h.srv.Do(t, "GET", "/api/v1/orders?store_id=acme-shop", token, nil); r.Status != 200 {
			t.Fatalf("fresh token: status %d, want 200; body %s", r.Status, r.Raw)
		}
		tokens, err := h.srv.DB().ListTokens(ctx, h.acme.TeamID)
		if err != nil {
			t.Fatalf("list tokens: %v", err)
		}
		id := 0
		for _, tok := range tokens {
			if tok.Name == "x" && tok.RevokedAt == nil && strings.HasPrefix(token, tok.Prefix) {
				id = tok.ID
			}
		}
		if id == 0 {
			t.Fatalf("issued token not in the team's token list")
		}
		if err := h.srv.DB().RevokeToken(ctx, id); err != nil {
			t.Fatalf("revoke: %v", err)
		}
		revokedAt := time.Now()
		var r *platentest.Response
		if !poll.Within(6*time.Second, nil, func() bool {
			r = h.srv.Do(t, "GET", "/api/v1/orders?store_id=acme-shop", token, nil)
			if r.Status != 200 && r.Status != 401 {
				t.Fatalf("revoked token while waiting: status %d, want 200 or 401; body %s", r.Status, r.Raw)
			}
			return r.Status == 401
		}) {
			t.Fatalf("revoked token still accepted %v after revocation (want 401 within 5 s): status %d",
				time.Since(revokedAt).Round(time.Millisecond), r.Status)
		}
		platentest.ErrorBody(t, r, 401)
		t.Logf("revoked token refused %v after revocation", time.Since(revokedAt).Round(time.Millisecond))
		o := biOrder("acme-shop")
		h.reject(t, token, o, biItemIDs(o), 401, "create with revoked token")
	})
}

// biNoPartialOrder checks that the store holds exactly the orders created
// on purpose, and that no item id seen only in failed requests exists.
func biNoPartialOrder(t *testing.T, h *biHarness) {
	listed := map[string]string{}
	pageToken := ""
	for page := 0; ; page++ {
		if page > 100 {
			t.Fatalf("list does not end")
		}
		path := "/api/v1/orders?store_id=acme-shop&page_size=100"
		if pageToken != "" {
			path += "&page_token=" + url.QueryEscape(pageToken)
		}
		r := h.srv.Do(t, "GET", path, h.acme.Token, nil)
		if r.Status != 200 {
			t.Fatalf("list: status %d; body %s", r.Status, r.Raw)
		}
		obj := r.Object(t)
		orders, ok := obj["orders"].([]any)
		if !ok && obj["orders"] != nil {
			t.Fatalf("list: orders is not an array: %s", r.Raw)
		}
		for _, o := range orders {
			m, _ := o.(map[string]any)
			uid, _ := m["uid"].(string)
			eid, _ := m["ecommerce_order_id"].(string)
			if m["store_id"] != nil && m["store_id"] != "acme-shop" {
				t.Errorf("list of acme-shop holds order %s of store %v", uid, m["store_id"])
			}
			listed[uid] = eid
		}
		next, _ := obj["next_page_token"].(string)
		if next == "" {
			break
		}
		pageToken = next
	}

	h.led.mu.Lock()
	defer h.led.mu.Unlock()
	for uid, eid := range h.led.created {
		if _, ok := listed[uid]; !ok {
			t.Errorf("order %s (%s) created by the test is not listed", uid, eid)
		}
	}
	for uid, eid := range listed {
		if _, ok := h.led.created[uid]; ok {
			continue
		}
		if what, ok := h.led.unexpected[uid]; ok {
			// Already a failure of the subtest that sent it.
			t.Logf("order %s (%s) exists, created by a request that should have failed: %s", uid, eid, what)
			continue
		}
		t.Errorf("order %s (%s) exists but no successful request of the test created it (partial order)", uid, eid)
	}
	if len(listed) != len(h.led.created)+len(h.led.unexpected) {
		t.Errorf("listed %d orders; created %d, unexpectedly created %d", len(listed), len(h.led.created), len(h.led.unexpected))
	}

	var failedOnly []string
	for id := range h.led.failedItems {
		if !h.led.goodItems[id] {
			failedOnly = append(failedOnly, id)
		}
	}
	slices.Sort(failedOnly)
	if len(failedOnly) == 0 {
		t.Fatalf("no failed item ids recorded")
	}
	for _, id := range failedOnly {
		r := h.srv.Do(t, "GET", "/api/v1/order-items/"+url.PathEscape(id)+"/print", h.acme.Token, nil)
		if r.Status != 404 {
			t.Errorf("item %s appeared only in failed requests but GET print answers %d; body %s", id, r.Status, r.Raw)
			continue
		}
		platentest.ErrorBody(t, r, 404)
	}
}
