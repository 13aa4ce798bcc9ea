package batches_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/platentest"
)

// TestIdempotentBatchAfterCrash: a process killed after a batch's insert
// committed but before its Idempotency-Key record got the answer leaves
// the record without one. Once the record's lease has passed, a retry with
// the same key and body must answer the batch the first request made
// (replayed), not make a second batch of the same items; another body
// under the key is still a conflict.
func TestIdempotentBatchAfterCrash(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		f := setup(t, b)
		items := f.order(t, f.shop, "crash-1", item("crash-1-1", 1, card("#c03030")), item("crash-1-2", 1, card("#3030c0")))
		body := map[string]any{"order_items": items, "print_templates": []string{f.templateUID}}
		first := f.srv.Do(t, "POST", "/api/v1/batch-orders", f.shop.Token, body, "Idempotency-Key", "batch-key")
		if first.Status != http.StatusOK {
			t.Fatalf("create: %d %s", first.Status, first.Raw)
		}
		loseAnswer(t, f)
		retry := f.srv.Do(t, "POST", "/api/v1/batch-orders", f.shop.Token, body, "Idempotency-Key", "batch-key")
		if retry.Status != http.StatusOK || retry.Object(t)["uid"] != first.Object(t)["uid"] || retry.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("retry after the crash: %d %s replayed=%q, want 200 with the first batch %v, replayed",
				retry.Status, retry.Raw, retry.Header.Get("Idempotent-Replayed"), first.Object(t)["uid"])
		}
		if n := countBatches(t, f); n != 1 {
			t.Errorf("%d batches after the retry, want 1", n)
		}

		loseAnswer(t, f)
		other := map[string]any{"order_items": items[:1], "print_templates": []string{f.templateUID}}
		if r := f.srv.Do(t, "POST", "/api/v1/batch-orders", f.shop.Token, other, "Idempotency-Key", "batch-key"); r.Status != http.StatusOK {
			t.Fatalf("another body under a key free again: %d %s", r.Status, r.Raw)
		} else if r.Object(t)["uid"] == first.Object(t)["uid"] {
			t.Errorf("another body under the key answered the first batch")
		}
	})
}

// loseAnswer makes the idempotency records look as a kill between a
// create's commit and its key's answer leaves them: without an answer,
// begun longer ago than the lease.
func loseAnswer(t *testing.T, f *fixture) {
	t.Helper()
	_, err := f.srv.DB().JobPool().Exec(`UPDATE idempotency_keys SET response = NULL, http_code = 0, created_at = $1`,
		time.Now().UTC().Add(-3*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
}
