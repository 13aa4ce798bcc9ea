package idempotency_test

import (
	"context"
	"database/sql/driver"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/platen-print/platen/internal/idempotency"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/storage"
)

// TestOutageReleasesTheKey: a request that failed because the database went
// away could not release its key then either (the release fails too); once
// the database answers again, the client's retry with the key runs rather
// than meet "still in progress" (409) until the lease passes.
func TestOutageReleasesTheKey(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		db := openStore(t, b)
		store := &cutAbandon{Idempotency: db.Idempotency()}
		i := idempotency.New(store)
		var h handler

		store.down.Store(true)
		outage := func(context.Context, any) (any, error) {
			return nil, fmt.Errorf("insert order: %w", driver.ErrBadConn)
		}
		keys := []string{"k-outage-1", "k-outage-2", "k-outage-3"}
		for _, key := range keys {
			_, err := call(i, caller(key), createMethod, "order of "+key, outage)
			wantRefusal(t, "a request during the outage", err, codes.Unavailable, "database")
		}

		time.Sleep(3 * idempotency.ReleaseRetry) // still down: the keys stay taken
		store.down.Store(false)                  // the database is back
		time.Sleep(3 * idempotency.ReleaseRetry) // the releaser's next pass
		for n, key := range keys {
			answer, err := call(i, caller(key), createMethod, "order of "+key, h.handle)
			if err != nil || answer != "answer to order of "+key || h.count() != n+1 {
				t.Errorf("the retry of %s after the outage: %q, %v after %d runs; want it run", key, answer, err, h.count())
			}
		}
		if n := store.tries.Load(); n < 2 {
			t.Errorf("the key's release was tried %d times, want it tried again until it went through", n)
		}
	})
}

// cutAbandon is the real store whose Abandon fails, as an unreachable
// database does, while down is set.
type cutAbandon struct {
	*storage.Idempotency
	down  atomic.Bool
	tries atomic.Int32
}

func (c *cutAbandon) Abandon(ctx context.Context, id int) error {
	c.tries.Add(1)
	if c.down.Load() {
		return fmt.Errorf("delete: %w", driver.ErrBadConn)
	}
	return c.Idempotency.Abandon(ctx, id)
}
