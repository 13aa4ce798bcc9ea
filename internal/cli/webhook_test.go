package cli_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestAdminStoreWebhook: `platen admin store webhook` sets a store's URL
// and prints its secret; --rotate-secret replaces the secret, the old one
// signing along for 24 h; a URL that is not http(s) is refused.
func TestAdminStoreWebhook(t *testing.T) {
	dataDir := t.TempDir()
	boot := bootstrap(t, nil, "--data-dir", dataDir, "--team", "acme", "--store", "acme-shop")
	type endpoint struct {
		StoreID  string     `json:"store_id"`
		URL      string     `json:"url"`
		Secret   string     `json:"secret"`
		Previous *time.Time `json:"previous_secret_expires_at"`
	}
	set := func(args ...string) endpoint {
		t.Helper()
		r := runOK(t, nil, append([]string{"admin", "store", "webhook", "acme-shop", "--data-dir", dataDir}, args...)...)
		var e endpoint
		if err := json.Unmarshal([]byte(r.stdout), &e); err != nil {
			t.Fatalf("%v: %s", err, r.stdout)
		}
		return e
	}
	first := set("--webhook-url", "https://shop.example.com/hooks")
	if first.StoreID != "acme-shop" || first.URL != "https://shop.example.com/hooks" || first.Secret != boot.WebhookSecret || first.Previous != nil {
		t.Errorf("set: %+v (bootstrap's secret %s)", first, boot.WebhookSecret)
	}
	rotated := set("--webhook-url", "https://shop.example.com/hooks2", "--rotate-secret")
	if rotated.Secret == first.Secret || !strings.HasPrefix(rotated.Secret, "whsec_") || rotated.Previous == nil ||
		time.Until(*rotated.Previous) < 23*time.Hour || time.Until(*rotated.Previous) > 25*time.Hour {
		t.Errorf("rotated: %+v", rotated)
	}
	if r := run(t, nil, "admin", "store", "webhook", "acme-shop", "--data-dir", dataDir, "--webhook-url", "ftp://x"); r.code == 0 || !strings.Contains(r.stderr, "http") {
		t.Errorf("ftp URL: exit %d, stderr %s", r.code, r.stderr)
	}
}

// TestAdminPrintCancel: `platen admin print cancel` cancels a Family B
// print that waits for its render (it never renders) and one that is ready
// (its files go); the shop sees cancelled with no files.
func TestAdminPrintCancel(t *testing.T) {
	images, _ := slowImages(t, time.Second)
	dataDir := t.TempDir()
	boot := bootstrap(t, nil, "--data-dir", dataDir, "--team", "acme", "--store", "acme-shop")
	srv := serve(t, dataDir, "--allow-private-network", "--render-workers", "1")
	doc := fmt.Sprintf(`{"width":50,"height":50,"layers":[{"type":"image","src":%q,"width":50,"height":50}]}`, images.URL+"/p.jpg")
	version, _ := json.Marshal(map[string]any{"design_version_id": "photo-v1", "template_config": url.QueryEscape(doc)})
	if r := do(t, "POST", srv.baseURL+"/api/v1/design-versions", boot.Token, string(version)); r.status != http.StatusOK {
		t.Fatalf("register: %d %s", r.status, r.body)
	}
	body := `{"external_id":"SO-1","lines":[{"design_version_id":"photo-v1","quantity":1},{"design_version_id":"photo-v1","quantity":2}]}`
	r := do(t, "POST", srv.baseURL+"/v1/shop/orders", boot.Token, body)
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	printIDs := func(order map[string]any) (ids, statuses []string, files []int) {
		for _, l := range order["data"].(map[string]any)["lines"].([]any) {
			p := l.(map[string]any)["prints"].([]any)[0].(map[string]any)
			ids = append(ids, p["id"].(string))
			statuses = append(statuses, p["status"].(string))
			files = append(files, len(p["files"].([]any)))
		}
		return ids, statuses, files
	}
	ids, _, _ := printIDs(r.object(t))
	cancel := func(id string) {
		t.Helper()
		out := runOK(t, nil, "admin", "print", "cancel", id, "--data-dir", dataDir)
		var got map[string]string
		if err := json.Unmarshal([]byte(out.stdout), &got); err != nil || got["status"] != "cancelled" || got["print_id"] != id {
			t.Fatalf("cancel printed %s (%v)", out.stdout, err)
		}
	}
	// One render at a time, each a second: the second print still waits.
	cancel(ids[1])
	var readyLink string
	deadline := time.Now().Add(30 * time.Second)
	for {
		order := do(t, "GET", srv.baseURL+"/v1/shop/orders/SO-1", boot.Token, "").object(t)
		_, statuses, files := printIDs(order)
		if statuses[1] != "cancelled" || files[1] != 0 {
			t.Fatalf("the cancelled print is %s with %d files", statuses[1], files[1])
		}
		if statuses[0] == "ready" {
			line := order["data"].(map[string]any)["lines"].([]any)[0].(map[string]any)
			readyLink = line["prints"].([]any)[0].(map[string]any)["files"].([]any)[0].(map[string]any)["url"].(string)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first print is still %s", statuses[0])
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond) // time for a render the cancel failed to stop
	if _, statuses, _ := printIDs(do(t, "GET", srv.baseURL+"/v1/shop/orders/SO-1", boot.Token, "").object(t)); statuses[1] != "cancelled" {
		t.Fatalf("the cancelled print became %s", statuses[1])
	}

	cancel(ids[0])
	if _, statuses, files := printIDs(do(t, "GET", srv.baseURL+"/v1/shop/orders/SO-1", boot.Token, "").object(t)); statuses[0] != "cancelled" || files[0] != 0 {
		t.Errorf("the cancelled ready print is %s with %d files", statuses[0], files[0])
	}
	if r := do(t, "GET", readyLink, "", ""); r.status != http.StatusNotFound {
		t.Errorf("its old link: %d %s", r.status, r.body)
	}
	if r := run(t, nil, "admin", "print", "cancel", "no-such-print", "--data-dir", dataDir); r.code == 0 {
		t.Error("cancelling an unknown print succeeded")
	}
}
