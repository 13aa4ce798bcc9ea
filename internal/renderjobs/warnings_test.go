package renderjobs_test

import (
	"net/http"
	"net/url"
	"reflect"
	"testing"

	"github.com/platen-print/platen/internal/platentest"
)

// lowResolutionDoc is a 100 mm square page with a 60 × 40 photo over its
// width (15 ppi at its placed size, cover: enlarged 20 times at 300 dpi) and a line of text 1 mm from
// the left edge.
func lowResolutionDoc(t *testing.T) string {
	return `{"width":100,"height":100,"layers":[
	  {"type":"image","src":"` + dataURI(photo(t, 60, 40)) + `","x":0,"y":0,"width":100,"height":60,"fit":"cover"},
	  {"type":"text","text":"Hello","x":1,"y":70,"width":50,"size":12}]}`
}

var wantWarnings = []any{
	map[string]any{"code": "upscaled", "layer": "layers[0]",
		"message": "the 60×40 image is enlarged 20.0× to print at 300 dpi (15 ppi at its placed size): it will look soft or blocky"},
	map[string]any{"code": "outside_safe_area", "layer": "layers[1]",
		"message": "its text comes within 3 mm of the trim edge, inside the safe margin: the cut may clip it"},
}

// TestPreflightWarnings: a ready print carries what the preflight found in
// its design, in Family A's status read and order details, in a Family B
// order, and in the operator's print; a design with nothing to say has
// none.
func TestPreflightWarnings(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.StartWith(t, b, nil)
		tenant := srv.Bootstrap(t, "acme", "shop-1")
		staff := srv.Staff(t, "ops@example.com")
		doc := lowResolutionDoc(t)
		uid := createOrder(t, srv, tenant.Token, platentest.OrderBody(tenant.StoreID, "w1", platentest.PrintFiles(), platentest.Design(doc)))["uid"].(string)
		st := srv.WaitPrint(t, tenant.Token, "w1-1")
		sameJSON(t, "status read warnings", st["warnings"], wantWarnings)
		sameJSON(t, "order details warnings", itemPrint(t, srv, tenant.Token, uid, 0)["warnings"], wantWarnings)
		itemUID := srv.Do(t, "GET", "/api/v1/orders/"+uid, tenant.Token, nil).Object(t)["items"].([]any)[0].(map[string]any)["uid"].(string)
		op := srv.Do(t, "GET", "/api/v1/operator/prints/"+itemUID, staff.Token, nil)
		if op.Status != http.StatusOK {
			t.Fatalf("operator print: %d %s", op.Status, op.Raw)
		}
		sameJSON(t, "operator print warnings", op.Object(t)["warnings"], wantWarnings)

		// Family B: the same design as a design version.
		if r := srv.Do(t, "POST", "/api/v1/design-versions", tenant.Token, map[string]any{
			"design_version_id": "soft", "template_config": url.QueryEscape(doc)}); r.Status != http.StatusOK {
			t.Fatalf("design version: %d %s", r.Status, r.Raw)
		}
		if r := srv.Do(t, "POST", "/v1/shop/orders", tenant.Token, map[string]any{"external_id": "b1",
			"lines": []any{map[string]any{"external_id": "l1", "design_version_id": "soft", "quantity": 1}}}); r.Status >= 300 {
			t.Fatalf("shop order: %d %s", r.Status, r.Raw)
		}
		var print map[string]any
		srv.WaitFor(t, readyTimeout, "the shop print ready", func() bool {
			r := srv.Do(t, "GET", "/v1/shop/orders/b1", tenant.Token, nil)
			print = r.Object(t)["data"].(map[string]any)["lines"].([]any)[0].(map[string]any)["prints"].([]any)[0].(map[string]any)
			return print["status"] == "ready"
		})
		sameJSON(t, "shop print warnings", print["warnings"], wantWarnings)

		// A design with nothing to warn of.
		createOrder(t, srv, tenant.Token, platentest.OrderBody(tenant.StoreID, "w2", platentest.PrintFiles(), platentest.Design(
			`{"width":100,"height":100,"layers":[{"type":"rect","x":-1,"y":-1,"width":102,"height":102,"fill":"#ff0000"}]}`)))
		sameJSON(t, "no warnings", srv.WaitPrint(t, tenant.Token, "w2-1")["warnings"], []any{})
	})
}

// sameJSON compares parsed JSON values.
func sameJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: %v, want %v", what, got, want)
	}
}
