package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
)

// exchange is one answer of the partition test, and when it was asked.
type exchange struct {
	key, id    string
	status     int
	retryAfter string
	body       string
	start      time.Time
	took       time.Duration
	err        error
}

// TestPostgresSilentPartition: with PostgreSQL's packets dropped and its
// connections left open, creates in flight and new ones answer within
// --db-timeout (plus the check of pooled connections) with 503 and
// Retry-After, never 500 or 504, never a hang; once the network is back
// the client's retry with the same Idempotency-Key runs, not 409.
func TestPostgresSilentPartition(t *testing.T) {
	var b platentest.Backend
	for _, each := range platentest.Backends() {
		if each.Name == "postgres" {
			b = each
		}
	}
	if b.Name == "" {
		t.Skip("PostgreSQL is not configured (" + platentest.PostgresEnv + "); TestPostgresConfigured says so too")
	}
	const bound = time.Second
	// A request during the partition: the bound for its statement, a
	// second for each of the two pooled connections database/sql checks
	// first, and a loaded machine's margin.
	const within = bound + 2*time.Second + 2*time.Second
	srv, outage := platentest.StartWithPostgresOutage(t, b, func(c *config.Config) { c.DBTimeout = bound })
	tenant := srv.Bootstrap(t, "acme", "acme-shop")
	if r := srv.Do(t, "POST", "/api/v1/orders", tenant.Token, platentest.OrderBody("acme-shop", "before")); r.Status != http.StatusOK {
		t.Fatalf("create before the partition: %d %s", r.Status, r.Raw)
	}

	var mu sync.Mutex
	var got []exchange
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("w%d-%d", w, n)
				e := exchange{key: "key-" + id, id: id, start: time.Now()}
				r, err := srv.Try("POST", "/api/v1/orders", tenant.Token, platentest.OrderBody("acme-shop", id), "Idempotency-Key", e.key)
				e.took, e.err = time.Since(e.start), err
				if r != nil {
					e.status, e.retryAfter, e.body = r.Status, r.Header.Get("Retry-After"), string(r.Raw)
				}
				mu.Lock()
				got = append(got, e)
				mu.Unlock()
			}
		})
	}
	// Every worker has had answers before the partition.
	poll.Until(t, 10*time.Second, "answers before the partition", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) >= 8
	})
	outage.Silence()
	defer outage.Up() // before the server's shutdown, should the test fail
	silenced := time.Now()
	time.Sleep(4 * bound)
	close(stop)
	waited := make(chan struct{})
	go func() { wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(within + 10*time.Second):
		t.Fatalf("requests still waiting %s into the partition", time.Since(silenced).Round(time.Second))
	}
	outage.Up()

	var unavailable []exchange
	var slowest time.Duration
	for _, e := range got {
		slowest = max(slowest, e.took)
		switch {
		case e.err != nil:
			t.Errorf("%s: %v", e.key, e.err)
		case e.status == http.StatusServiceUnavailable && e.retryAfter != "":
			unavailable = append(unavailable, e)
		case e.status != http.StatusOK:
			t.Errorf("%s during the partition: %d (Retry-After %q) %s, want 200, or 503 with Retry-After", e.key, e.status, e.retryAfter, e.body)
		}
		if e.took > within {
			t.Errorf("%s answered %d after %s, want within %s", e.key, e.status, e.took.Round(time.Millisecond), within)
		}
	}
	if len(unavailable) == 0 {
		t.Fatalf("no request met the partition (%d answers)", len(got))
	}
	t.Logf("%d answers, %d of them 503 during the partition; the slowest took %s", len(got), len(unavailable), slowest.Round(time.Millisecond))
	for _, e := range unavailable {
		retryAfterPartition(t, srv, tenant.Token, e)
	}
}

// retryAfterPartition sends e's create again with its key, as its client
// would once the database is back: a 503 while the pool reconnects is
// retried, a 409 "still in progress" is the lease the failed request kept.
func retryAfterPartition(t *testing.T, srv *platentest.Server, token string, e exchange) {
	t.Helper()
	var r *platentest.Response
	poll.Within(10*time.Second, nil, func() bool {
		r = srv.Do(t, "POST", "/api/v1/orders", token, platentest.OrderBody("acme-shop", e.id), "Idempotency-Key", e.key)
		return r.Status != http.StatusServiceUnavailable
	})
	switch {
	case r.Status == http.StatusConflict && strings.Contains(string(r.Raw), "in progress"):
		t.Errorf("retry of %s after the partition: 409 %s; the failed request kept its key", e.key, r.Raw)
	case r.Status != http.StatusOK:
		t.Errorf("retry of %s after the partition: %d %s", e.key, r.Status, r.Raw)
	}
}
