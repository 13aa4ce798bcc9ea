package webhooks_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
)

// endpoint is a webhook receiver on loopback whose behaviour the test
// switches: it answers status at once, or holds each request until it is
// switched again (or the client gives up). It counts requests per delivery
// and the most it held at once.
type endpoint struct {
	*httptest.Server
	mu      sync.Mutex
	status  int           // 0: hold
	change  chan struct{} // closed when the behaviour changes
	seen    map[string]int
	total   int
	held    int
	maxHeld int
}

func newEndpoint(t *testing.T, status int) *endpoint {
	e := &endpoint{status: status, change: make(chan struct{}), seen: map[string]int{}}
	e.Server = httptest.NewServer(http.HandlerFunc(e.serve))
	t.Cleanup(func() { e.set(http.StatusNoContent); e.Close() })
	return e
}

func (e *endpoint) serve(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	e.mu.Lock()
	e.seen[r.Header.Get("Platen-Delivery")]++
	e.total++
	status, change := e.status, e.change
	if status == 0 {
		e.held++
		e.maxHeld = max(e.maxHeld, e.held)
	}
	e.mu.Unlock()
	if status == 0 {
		select {
		case <-change:
		case <-r.Context().Done():
		}
		e.mu.Lock()
		e.held--
		status = max(e.status, http.StatusNoContent)
		e.mu.Unlock()
	}
	w.WriteHeader(status)
}

// set makes the endpoint answer status from now on (0: hold), and answers
// the requests it holds the same way.
func (e *endpoint) set(status int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.status = status
	close(e.change)
	e.change = make(chan struct{})
}

// counts returns the requests seen per delivery, their total, and the most
// held at once.
func (e *endpoint) counts() (map[string]int, int, int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	seen := make(map[string]int, len(e.seen))
	for k, v := range e.seen {
		seen[k] = v
	}
	return seen, e.total, e.maxHeld
}

// store bootstraps a team with a store whose webhook goes to rawURL, and
// registers the sticker design; it returns the store's token.
func store(t *testing.T, srv *platentest.Server, team, storeID, rawURL string) string {
	t.Helper()
	tenant := srv.Bootstrap(t, team, storeID)
	if r := srv.Do(t, "PUT", "/api/v1/stores/"+storeID+"/webhook", tenant.Token, map[string]any{"url": rawURL}); r.Status != http.StatusOK {
		t.Fatalf("set webhook: %d %s", r.Status, r.Raw)
	}
	doc := map[string]any{"design_version_id": "sticker-v1", "template_config": url.QueryEscape(stickerDoc)}
	if r := srv.Do(t, "POST", "/api/v1/design-versions", tenant.Token, doc); r.Status != http.StatusOK {
		t.Fatalf("register design: %d %s", r.Status, r.Raw)
	}
	return tenant.Token
}

// order posts a Family B order of n one-copy lines (so n prints, each
// print_files.ready once rendered).
func order(t *testing.T, srv *platentest.Server, token, externalID string, n int) {
	t.Helper()
	lines := make([]any, n)
	for i := range lines {
		lines[i] = map[string]any{"design_version_id": "sticker-v1", "quantity": 1}
	}
	if r := srv.Do(t, "POST", "/v1/shop/orders", token, map[string]any{"external_id": externalID, "lines": lines}); r.Status != http.StatusCreated {
		t.Fatalf("create %s: %d %s", externalID, r.Status, r.Raw)
	}
}

// deliveries returns the store's delivery log (at most 500 entries).
func deliveries(t *testing.T, srv *platentest.Server, token, storeID, query string) []map[string]any {
	t.Helper()
	r := srv.Do(t, "GET", "/api/v1/stores/"+storeID+"/webhook-deliveries?page_size=500"+query, token, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("delivery log: %d %s", r.Status, r.Raw)
	}
	list, _ := r.Object(t)["webhook_deliveries"].([]any)
	out := make([]map[string]any, len(list))
	for i, d := range list {
		out[i] = d.(map[string]any)
	}
	return out
}

// checkAllDelivered waits until the store's n deliveries are all delivered,
// then checks that none failed and that each one's attempts in the log are
// the requests its endpoint saw for it: holding a delivery back is no
// attempt.
func checkAllDelivered(t *testing.T, srv *platentest.Server, token, storeID string, n int, e *endpoint) {
	t.Helper()
	poll.Until(t, time.Minute, storeID+"'s deliveries all delivered", func() bool {
		return len(deliveries(t, srv, token, storeID, "&status=delivered")) == n
	})
	if failed := deliveries(t, srv, token, storeID, "&status=failed"); len(failed) != 0 {
		t.Errorf("%d deliveries failed: %v", len(failed), failed[0])
	}
	seen, _, _ := e.counts()
	for _, d := range deliveries(t, srv, token, storeID, "") {
		if got := seen[d["id"].(string)]; float64(got) != d["attempts"] || got == 0 {
			t.Errorf("delivery %s: %v attempts in the log, %d requests seen", d["id"], d["attempts"], got)
		}
	}
}

// TestSlowEndpointHoldsOnlyItsStore: store A's endpoint hangs (longer than
// this test's bound: each attempt gives up after 4 s) while 48 of its
// deliveries are pending, more than the 32 delivery workers; store B's
// delivery still arrives within 3 s, and A's endpoint is never sent more
// than 4 at once. When A's endpoint answers again, every one of its
// deliveries arrives, none failed, each with the attempts its endpoint saw.
func TestSlowEndpointHoldsOnlyItsStore(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		hung, fine := newEndpoint(t, 0), newEndpoint(t, http.StatusNoContent)
		srv := platentest.StartWith(t, b, func(c *config.Config) {
			c.AllowPrivateNetwork = true
			c.WebhookAttemptTimeout = 4 * time.Second
			c.WebhookPause = time.Second
			c.WebhookRetryDelays = []time.Duration{100 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond,
				100 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond}
		})
		tokenA := store(t, srv, "acme", "acme-shop", hung.URL)
		tokenB := store(t, srv, "globex", "globex-shop", fine.URL)
		const n = 48
		order(t, srv, tokenA, "A-1", n)
		poll.Until(t, time.Minute, "A's deliveries all written", func() bool {
			return len(deliveries(t, srv, tokenA, "acme-shop", "")) == n
		})
		poll.Until(t, 30*time.Second, "A's endpoint holding 4", func() bool { _, _, held := hung.counts(); return held >= 4 })

		start := time.Now()
		order(t, srv, tokenB, "B-1", 1)
		poll.Until(t, 3*time.Second, "B's delivery arriving", func() bool { _, total, _ := fine.counts(); return total == 1 })
		t.Logf("%s: B's delivery arrived %v after its order, with A's endpoint hung", b.Name, time.Since(start).Round(time.Millisecond))
		if _, _, most := hung.counts(); most > 4 {
			t.Errorf("A's endpoint held %d requests at once, want at most 4", most)
		}

		hung.set(http.StatusNoContent)
		checkAllDelivered(t, srv, tokenA, "acme-shop", n, hung)
		checkAllDelivered(t, srv, tokenB, "globex-shop", 1, fine)
		t.Logf("%s: A's %d deliveries arrived %v after B's order", b.Name, n, time.Since(start).Round(time.Millisecond))
	})
}

// TestFailingEndpointIsPaused: an endpoint that answers 503 to everything
// is paused after 5 failures in a row. While it fails, its held deliveries
// make no attempts (only a probe now and then) and none fails, though each
// is allowed 9 attempts 100 ms apart, which would end them all within about
// a second; their log shows them pending and due later, not overdue. Once
// the endpoint answers 204, a probe resumes it and all arrive.
func TestFailingEndpointIsPaused(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		e := newEndpoint(t, http.StatusServiceUnavailable)
		srv := platentest.StartWith(t, b, func(c *config.Config) {
			c.AllowPrivateNetwork = true
			c.WebhookPause = 500 * time.Millisecond
			c.WebhookRetryDelays = make([]time.Duration, 8)
			for i := range c.WebhookRetryDelays {
				c.WebhookRetryDelays[i] = 100 * time.Millisecond
			}
		})
		token := store(t, srv, "acme", "acme-shop", e.URL)
		const n = 40
		order(t, srv, token, "A-1", n)
		poll.Until(t, time.Minute, "the deliveries all written", func() bool {
			return len(deliveries(t, srv, token, "acme-shop", "")) == n
		})
		poll.Until(t, 30*time.Second, "5 failures", func() bool { _, total, _ := e.counts(); return total >= 5 })

		// Three seconds of failures: without the pause every delivery would
		// have failed for good; with it, a probe at 0.5, 1.5 and 3.5 s.
		time.Sleep(3 * time.Second)
		_, total, _ := e.counts()
		if total > 20 {
			t.Errorf("the failing endpoint saw %d requests in 3 s; want the pause to hold them back", total)
		}
		now := time.Now()
		for _, d := range deliveries(t, srv, token, "acme-shop", "") {
			next, err := time.Parse(time.RFC3339Nano, fmt.Sprint(d["next_attempt_at"]))
			if d["status"] != "pending" || err != nil || next.Before(now.Add(-time.Second)) {
				t.Errorf("while paused, delivery %v: want pending, its next attempt not overdue", d)
			}
		}
		t.Logf("%s: %d requests while the endpoint failed", b.Name, total)

		e.set(http.StatusNoContent)
		checkAllDelivered(t, srv, token, "acme-shop", n, e)
	})
}
