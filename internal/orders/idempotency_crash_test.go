package orders_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/platentest"
)

// TestIdempotentCreateAfterCrash: a process killed after an order's
// insert committed but before its Idempotency-Key record got the answer
// leaves the record without one. Once the record's lease has passed, a
// retry with the same key and body must answer the order that the first
// request made (replayed), not a 409 for an ecommerce_order_id that the
// client's own first request took; another body under the key is still a
// conflict.
func TestIdempotentCreateAfterCrash(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		body := fullOrder("acme-shop", "crash-1", item("crash-1-1"))
		first := srv.Do(t, "POST", "/api/v1/orders", acme.Token, body, "Idempotency-Key", "crash-key")
		if first.Status != http.StatusOK {
			t.Fatalf("create: %d %s", first.Status, first.Raw)
		}
		// What a kill between the two commits leaves: the record without
		// its answer, begun longer ago than the lease.
		res, err := srv.DB().JobPool().Exec(`UPDATE idempotency_keys SET response = NULL, http_code = 0, created_at = $1`,
			time.Now().UTC().Add(-3*time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			t.Fatalf("%d idempotency records, want 1", n)
		}

		retry := srv.Do(t, "POST", "/api/v1/orders", acme.Token, body, "Idempotency-Key", "crash-key")
		if retry.Status != http.StatusOK || retry.Object(t)["uid"] != first.Object(t)["uid"] {
			t.Fatalf("retry after the crash: %d %s, want 200 with the first create's uid %v", retry.Status, retry.Raw, first.Object(t)["uid"])
		}
		if got := retry.Header.Get("Idempotent-Replayed"); got != "true" {
			t.Errorf("retry after the crash: Idempotent-Replayed %q, want true", got)
		}
		again := srv.Do(t, "POST", "/api/v1/orders", acme.Token, body, "Idempotency-Key", "crash-key")
		if again.Status != http.StatusOK || again.Object(t)["uid"] != first.Object(t)["uid"] || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("second retry: %d %s replayed=%q", again.Status, again.Raw, again.Header.Get("Idempotent-Replayed"))
		}

		// Another body under a key whose record lost its answer.
		if _, err := srv.DB().JobPool().Exec(`UPDATE idempotency_keys SET response = NULL, http_code = 0, created_at = $1`,
			time.Now().UTC().Add(-3*time.Minute)); err != nil {
			t.Fatal(err)
		}
		other := fullOrder("acme-shop", "crash-1", item("crash-1-1"), item("crash-1-2"))
		if r := srv.Do(t, "POST", "/api/v1/orders", acme.Token, other, "Idempotency-Key", "crash-key"); r.Status != http.StatusConflict {
			t.Errorf("another body after the crash: %d %s, want 409", r.Status, r.Raw)
		}
	})
}
