package webhooks_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
)

// TestNewURLEndsThePause: a store's dead endpoint fails five attempts in a
// row and is paused for ten minutes; its client registers a new URL, and
// the pending delivery reaches the new endpoint within seconds, with a
// fresh schedule, rather than after the pause; on both databases.
func TestNewURLEndsThePause(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		dead := platentest.NewReceiver(t, platentest.FirstAnswering(slices.Repeat([]int{http.StatusServiceUnavailable}, 50)...))
		srv := platentest.StartWith(t, b, func(c *config.Config) {
			c.AllowPrivateNetwork = true
			c.WebhookRetryDelays = slices.Repeat([]time.Duration{50 * time.Millisecond}, 8)
			c.WebhookPause = 10 * time.Minute
		})
		tenant := srv.Bootstrap(t, "acme", "acme-shop")
		setURL(t, srv, tenant.Token, dead.URL+"/hooks")
		doc := map[string]any{"design_version_id": "sticker-v1", "template_config": url.QueryEscape(stickerDoc)}
		if r := srv.Do(t, "POST", "/api/v1/design-versions", tenant.Token, doc); r.Status != http.StatusOK {
			t.Fatalf("register design: %d %s", r.Status, r.Raw)
		}
		if r := srv.Do(t, "POST", "/v1/shop/orders", tenant.Token, map[string]any{
			"external_id": "SO-1", "lines": []any{map[string]any{"design_version_id": "sticker-v1", "quantity": 1}}}); r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		paused := waitLog(t, srv, tenant.Token, func(d map[string]any) bool {
			next, _ := time.Parse(time.RFC3339Nano, stringOf(d["next_attempt_at"]))
			return d["attempts"] == 5.0 && time.Until(next) > 5*time.Minute
		})
		// The delivery has gone back to the queue for the pause, not just
		// for its 50 ms retry delay.
		poll.Until(t, 15*time.Second, "the delivery held back for the pause", func() bool {
			return strings.Contains(string(srv.Do(t, "GET", "/metrics", "", nil).Raw), `platen_webhook_postponed_total{reason="endpoint_paused"} 1`)
		})

		live := platentest.NewReceiver(t)
		moved := time.Now()
		setURL(t, srv, tenant.Token, live.URL+"/hooks")
		got := live.Wait(t, 1, 15*time.Second)
		t.Logf("delivered to the new URL %v after it was set", time.Since(moved).Round(time.Millisecond))
		if got[0].Header.Get("Platen-Delivery") != paused["id"] {
			t.Errorf("the new endpoint got delivery %q, want %q", got[0].Header.Get("Platen-Delivery"), paused["id"])
		}
		delivered := waitLog(t, srv, tenant.Token, func(d map[string]any) bool { return d["status"] == "delivered" })
		if delivered["id"] != paused["id"] || delivered["attempts"] != 1.0 {
			t.Errorf("after the move: %v", delivered)
		}
		if n := len(dead.Deliveries()); n != 5 {
			t.Errorf("the dead endpoint saw %d attempts, want the 5 before the pause", n)
		}
	})
}

func setURL(t *testing.T, srv *platentest.Server, token, endpoint string) {
	t.Helper()
	r := srv.Do(t, "PUT", "/api/v1/stores/acme-shop/webhook", token, map[string]any{"url": endpoint})
	if r.Status != http.StatusOK {
		t.Fatalf("set webhook: %d %s", r.Status, r.Raw)
	}
}

func stringOf(v any) string {
	s, _ := v.(string)
	return s
}
