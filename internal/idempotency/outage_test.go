package idempotency_test

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/platen-print/platen/internal/idempotency"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
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

		// Still down: the releaser tries again, and the keys stay taken.
		poll.Until(t, 10*idempotency.ReleaseRetry, "a release tried again during the outage", func() bool {
			return store.tries.Load() > int32(len(keys))
		})
		store.down.Store(false) // the database is back
		poll.Until(t, 10*idempotency.ReleaseRetry, "the keys released once the database is back", func() bool {
			return store.released.Load() == int32(len(keys))
		})
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
// database does, while down is set. It counts the releases tried, and
// those that went through.
type cutAbandon struct {
	*storage.Idempotency
	down     atomic.Bool
	tries    atomic.Int32
	released atomic.Int32
}

func (c *cutAbandon) Abandon(ctx context.Context, teamID int, key, attempt string) error {
	c.tries.Add(1)
	if c.down.Load() {
		return fmt.Errorf("delete: %w", driver.ErrBadConn)
	}
	err := c.Idempotency.Abandon(ctx, teamID, key, attempt)
	if err == nil {
		c.released.Add(1)
	}
	return err
}

// TestUnknownBeginFreesTheKey: a Begin that failed on the network may have
// been written all the same: its commit reached the database and only the
// answer was lost, or the commit was held by the silent network and
// delivered once it healed, after the releaser had looked. Either leaves a
// record no request runs under; the client's retry runs, on this process
// at once and on another once the releaser has looked again.
func TestUnknownBeginFreesTheKey(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		db := openStore(t, b)
		store := &silentBegin{Idempotency: db.Idempotency()}
		here := idempotency.New(store)
		elsewhere := idempotency.New(db.Idempotency())
		var h handler
		retry := func(i *idempotency.Interceptor, key, what string) {
			t.Helper()
			runs := h.count()
			answer, err := call(i, caller(key), createMethod, "order of "+key, h.handle)
			if err != nil || answer != "answer to order of "+key || h.count() != runs+1 {
				t.Errorf("the retry of %s %s: %q, %v; want it run", key, what, answer, err)
			}
		}
		fail := func(key string, mode int32) {
			t.Helper()
			store.mode.Store(mode)
			_, err := call(here, caller(key), createMethod, "order of "+key, h.handle)
			wantRefusal(t, "a request during the outage", err, codes.Unavailable, "database")
			store.mode.Store(beginAnswers)
		}

		fail("k-lost", beginAnswerLost)
		retry(here, "k-lost", "whose first Begin was written, its answer lost")

		fail("k-late-here", beginHeld)
		fail("k-late-elsewhere", beginHeld)
		// The releaser frees both records before they are written: it
		// finds nothing to free.
		poll.Until(t, 10*idempotency.ReleaseRetry, "both keys released once", func() bool {
			return store.abandons("k-late-here") > 0 && store.abandons("k-late-elsewhere") > 0
		})
		store.deliverHeld(t) // the network heals: the commits go through
		retry(here, "k-late-here", "on the process whose Begin was delivered late")
		poll.Until(t, 10*time.Second, "the releaser looking again", func() bool { return store.abandons("k-late-elsewhere") > 1 })
		retry(elsewhere, "k-late-elsewhere", "on another process, its Begin delivered late")
	})
}

const (
	beginAnswers int32 = iota
	beginAnswerLost
	beginHeld
)

// silentBegin is the real store whose Begin meets a silent network: in
// mode beginAnswerLost it is written but fails, in mode beginHeld it fails
// and is written only when deliverHeld says so. It counts the releases of
// each key that went through.
type silentBegin struct {
	*storage.Idempotency
	mode atomic.Int32
	held []func() error

	mu        sync.Mutex
	abandoned map[string]int
}

func (s *silentBegin) Abandon(ctx context.Context, teamID int, key, attempt string) error {
	err := s.Idempotency.Abandon(ctx, teamID, key, attempt)
	if err == nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.abandoned == nil {
			s.abandoned = map[string]int{}
		}
		s.abandoned[key]++
	}
	return err
}

// abandons is how many releases of key (as the client sent it; the store
// sees it scoped to the store) went through.
func (s *silentBegin) abandons(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for scoped, count := range s.abandoned {
		if strings.HasSuffix(scoped, ":"+key) {
			n += count
		}
	}
	return n
}

func (s *silentBegin) Begin(ctx context.Context, teamID int, key, attempt, method string, hash []byte) (*idempotency.Record, int, error) {
	lost := fmt.Errorf("commit: %w", driver.ErrBadConn)
	switch s.mode.Load() {
	case beginAnswerLost:
		if _, _, err := s.Idempotency.Begin(ctx, teamID, key, attempt, method, hash); err != nil {
			return nil, 0, err
		}
		return nil, 0, lost
	case beginHeld:
		s.held = append(s.held, func() error {
			_, _, err := s.Idempotency.Begin(context.Background(), teamID, key, attempt, method, hash)
			return err
		})
		return nil, 0, lost
	}
	return s.Idempotency.Begin(ctx, teamID, key, attempt, method, hash)
}

func (s *silentBegin) deliverHeld(t *testing.T) {
	t.Helper()
	for _, write := range s.held {
		if err := write(); err != nil {
			t.Fatal(err)
		}
	}
	s.held = nil
}
