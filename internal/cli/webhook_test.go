package cli_test

import (
	"encoding/json"
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
