package cli_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/pdfxtest"
	"github.com/platen-print/platen/internal/platentest"
)

// TestRenderProcessUsesPressSettings: with `serve --render-addr`, the
// render process, which keeps nothing of a team's, makes an item's PDF
// for the output profile its variant names (the profile travels with the
// render), and fails a print below its variant's min_effective_ppi with
// the reason.
func TestRenderProcessUsesPressSettings(t *testing.T) {
	t.Parallel() // each test runs processes of its own
	renderAddr, _ := startRenderOnFreePort(t)
	dataDir := t.TempDir()
	boot := bootstrap(t, nil, "--data-dir", dataDir, "--team", "acme", "--store", "acme-shop")
	var staff createdOperator
	decodeOne(t, runOK(t, nil, "admin", "operator", "create", "--data-dir", dataDir, "--email", "grace@example.com", "--staff"), &staff)
	srv := serve(t, dataDir, "--render-addr", renderAddr, "--allow-private-network")
	call := func(method, path, token string, body any) map[string]any {
		t.Helper()
		raw, _ := json.Marshal(body)
		r := do(t, method, srv.baseURL+path, token, string(raw))
		if r.status != http.StatusOK {
			t.Fatalf("%s %s: %d %s", method, path, r.status, r.body)
		}
		return r.object(t)
	}
	events := make(chan map[string]any, 8)
	hooks := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		var e map[string]any
		if body, _ := io.ReadAll(r.Body); json.Unmarshal(body, &e) == nil {
			events <- e
		}
	}))
	t.Cleanup(hooks.Close)
	call("PUT", "/api/v1/stores/acme-shop/webhook", boot.Token, map[string]any{"url": hooks.URL})

	profile := platentest.CMYKProfile(t)
	uid := call("POST", "/api/v1/operator/output-profiles", staff.Token, map[string]any{"team_id": boot.TeamID,
		"identifier": "TEST-PRESS-1", "data": base64.StdEncoding.EncodeToString(profile)})["uid"]
	cat := call("POST", "/api/v1/product-categories", boot.Token, map[string]any{"name": "Cards"})
	prod := call("POST", "/api/v1/products", boot.Token, map[string]any{"category_id": cat["id"], "name": "Card",
		"order_column": 1, "active": true, "team_id": boot.TeamID})
	for evid, settings := range map[string]map[string]any{"custom": {"output_profile_id": uid}, "strict": {"min_effective_ppi": 150}} {
		body := map[string]any{"name": evid, "product_id": prod["id"], "country_id": 276, "ecommerce_variant_ids": []string{evid}}
		for k, v := range settings {
			body[k] = v
		}
		call("POST", "/api/v1/product-variants", boot.Token, body)
	}
	photo := "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAACgAAAAoCAIAAAADnC86AAAAK0lEQVR42u3NMQ0AAAwDoEqv9JpYsgcMkD6JWCwWi8VisVgsFovFYrFYfGfEhGCIwVCFyAAAAABJRU5ErkJggg=="
	doc := fmt.Sprintf(`{"width":148,"height":105,"layers":[{"type":"image","src":%q,"x":20,"y":20,"width":50,"height":50}]}`, photo)
	item := func(id, variant string) map[string]any {
		return map[string]any{"ecommerce_order_item_id": id, "ecommerce_variant_id": variant, "quantity": 1,
			"thumbnails": []string{"https://example.com/t.png"}, "template_config": url.QueryEscape(doc)}
	}
	call("POST", "/api/v1/orders", boot.Token, map[string]any{"store_id": "acme-shop", "ecommerce_order_id": "1",
		"create_print_files": true, "items": []any{item("1-custom", "custom"), item("1-strict", "strict")}})

	got := map[string]map[string]any{}
	timeout := time.After(2 * readyTimeout)
	for len(got) < 2 {
		select {
		case e := <-events:
			got[e["ecommerce_order_item_id"].(string)] = e
		case <-timeout:
			t.Fatalf("events after %v: %v", 2*readyTimeout, got)
		}
	}
	if e := got["1-custom"]; e["event"] != "order_item.print_file.ready" {
		t.Fatalf("the custom variant's print: %v", e)
	}
	resp, err := httpClient.Get(got["1-custom"]["url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	pdf, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if in := pdfxtest.OutputIntentOf(t, pdf); in.Identifier != "TEST-PRESS-1" || !bytes.Equal(in.Profile, profile) {
		t.Errorf("the PDF's output intent names %q; want the variant's profile", in.Identifier)
	}
	st := do(t, "GET", srv.baseURL+"/api/v1/order-items/1-strict/print", boot.Token, "").object(t)
	want := "layers[0]: the 40×40 image is 20 ppi at its placed size, below the minimum of 150 ppi set for this product"
	if got["1-strict"]["event"] != "order_item.print_file.failed" || st["status"] != "processingfailed" || st["error"] != want {
		t.Errorf("the strict variant's print: %v; want processingfailed with %q", st, want)
	}
}
