package server_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
)

// TestReadyzFollowsWrites: /readyz answers 503 while the database refuses
// writes though it still answers reads, and 200 again once writes go
// through, each within a few seconds (answers are cached for a second).
func TestReadyzFollowsWrites(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv, fault := platentest.StartWithWriteFault(t, b, nil)
		tenant := srv.Bootstrap(t, "acme", "acme-shop")
		readyz(t, srv, http.StatusOK, "ok", "")

		fault(t, true)
		took := readyz(t, srv, http.StatusServiceUnavailable, "unavailable", "database refuses writes")
		t.Logf("503 %v after writes began to fail", took.Round(time.Millisecond))
		// The fault is the one readiness is about: reads work, writes fail.
		if r := srv.Do(t, "GET", "/api/v1/orders?store_id=acme-shop", tenant.Token, nil); r.Status != http.StatusOK {
			t.Errorf("a read while writes fail: %d %s", r.Status, r.Raw)
		}
		if r := srv.Do(t, "POST", "/api/v1/orders", tenant.Token, platentest.OrderBody("acme-shop", "during")); r.Status < 500 {
			t.Errorf("a write while writes fail: %d %s", r.Status, r.Raw)
		}
		// Still not ready a while later: the answer is not a one-off.
		time.Sleep(1500 * time.Millisecond)
		readyz(t, srv, http.StatusServiceUnavailable, "unavailable", "database refuses writes")

		fault(t, false)
		took = readyz(t, srv, http.StatusOK, "ok", "")
		t.Logf("200 %v after writes came back", took.Round(time.Millisecond))
		if r := srv.Do(t, "POST", "/api/v1/orders", tenant.Token, platentest.OrderBody("acme-shop", "after")); r.Status != http.StatusOK {
			t.Errorf("a write once ready: %d %s", r.Status, r.Raw)
		}
	})
}

// readyz polls /readyz until it answers status with that body, for up to
// 10 s, and returns how long that took.
func readyz(t *testing.T, srv *platentest.Server, status int, state, reason string) time.Duration {
	t.Helper()
	start := time.Now()
	var r *platentest.Response
	if !poll.Within(10*time.Second, nil, func() bool {
		r = srv.Do(t, "GET", "/readyz", "", nil)
		body, _ := r.JSON.(map[string]any)
		return r.Status == status && body["status"] == state && (reason == "" || body["reason"] == reason)
	}) {
		t.Fatalf("/readyz: %d %s, want %d %s %s", r.Status, r.Raw, status, state, reason)
	}
	return time.Since(start)
}
