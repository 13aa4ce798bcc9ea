package storage_test

import (
	"context"
	"database/sql"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/storage"
)

// testBound is the calls' bound in these tests; margin what a loaded
// machine may add to it.
const (
	testBound = time.Second
	margin    = 2 * time.Second
)

// openCutPostgres is a migrated PostgreSQL database reached through a
// proxy that the returned Outage cuts, its calls bounded by testBound.
func openCutPostgres(t *testing.T) (*storage.DB, platentest.Outage) {
	t.Helper()
	var b platentest.Backend
	for _, each := range platentest.Backends() {
		if each.Name == "postgres" {
			b = each
		}
	}
	if b.Name == "" {
		t.Skip("PostgreSQL is not configured (" + platentest.PostgresEnv + "); TestPostgresConfigured says so too")
	}
	u, err := url.Parse(b.NewDatabaseURL(t))
	if err != nil {
		t.Fatal(err)
	}
	addr, outage := platentest.StartTCPProxy(t, u.Host)
	u.Host = addr
	db, err := storage.Open(u.String(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	db.BoundCalls(testBound)
	return db, outage
}

// timed runs f and returns its error and how long it took, failing the
// test if it has not returned after limit (a hang).
func timed(t *testing.T, what string, limit time.Duration, f func() error) (time.Duration, error) {
	t.Helper()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return time.Since(start), err
	case <-time.After(limit):
		t.Fatalf("%s still waiting after %s", what, limit)
		return 0, nil
	}
}

// TestSilentPartition: with PostgreSQL's packets dropped and the
// connections left open, a statement already waiting for its answer, a
// transaction begun before, and a new statement each end within the bound
// (new ones: plus the check of pooled connections) as the database being
// unreachable; once the network is back the pool works again.
func TestSilentPartition(t *testing.T) {
	db, outage := openCutPostgres(t)
	pool := storage.JobPool(db)
	ctx := context.Background()
	tx, err := pool.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	inFlight := make(chan error, 1)
	var took time.Duration
	go func() {
		start := time.Now()
		_, err := pool.ExecContext(ctx, "SELECT pg_sleep(0.3)")
		took = time.Since(start)
		inFlight <- err
	}()
	time.Sleep(100 * time.Millisecond) // the statement is at the server
	outage.Silence()
	defer outage.Up()

	select {
	case err := <-inFlight:
		if !apierr.Unreachable(err) || took > testBound+margin {
			t.Errorf("statement in flight: %v after %s, want unreachable within %s", err, took, testBound+margin)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("statement in flight still waiting 30 s into the partition")
	}
	d, err := timed(t, "statement in a transaction", 30*time.Second, func() error {
		_, err := tx.ExecContext(ctx, "SELECT 1")
		return err
	})
	if !apierr.Unreachable(err) || d > testBound+margin {
		t.Errorf("statement in a transaction begun before: %v after %s, want unreachable within %s", err, d, testBound+margin)
	}
	_ = tx.Rollback()
	// A new call first checks idle pooled connections (each up to a
	// second), then opens a fresh one (up to the bound).
	d, err = timed(t, "new statement", 30*time.Second, func() error {
		_, err := pool.ExecContext(ctx, "SELECT 1")
		return err
	})
	if !apierr.Unreachable(err) || d > 2*time.Second+testBound+margin {
		t.Errorf("new statement: %v after %s, want unreachable within %s", err, d, 2*time.Second+testBound+margin)
	}

	outage.Up()
	d, err = timed(t, "statement after the partition", 30*time.Second, func() error {
		_, err := pool.ExecContext(ctx, "SELECT 1")
		return err
	})
	if err != nil {
		t.Errorf("after the partition: %v (after %s)", err, d)
	}
}

// TestResetPooledConnections: after every connection was reset, the
// transactions begun at once on the pooled connections the network closed
// (too fresh for database/sql's check before reuse) run on new ones, not
// fail.
func TestResetPooledConnections(t *testing.T) {
	db, outage := openCutPostgres(t)
	pool := storage.JobPool(db)
	ctx := context.Background()
	const n = 6
	fill := func() {
		var txs []*sql.Tx
		for range n {
			tx, err := pool.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			txs = append(txs, tx)
		}
		for _, tx := range txs {
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}
	}
	for round := range 3 {
		fill() // n idle connections, just used
		outage.Down()
		outage.Up()
		time.Sleep(50 * time.Millisecond) // the resets arrive
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for range n {
			wg.Go(func() {
				tx, err := pool.BeginTx(ctx, nil)
				if err == nil {
					_, err = tx.ExecContext(ctx, "SELECT 1")
					if err == nil {
						err = tx.Commit()
					}
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("round %d: a transaction after the reset: %v", round, err)
			}
		}
	}
}

// TestTheWaitForAConnectionIsBounded: with every connection of the pool
// taken (under a silent database, by calls hanging in it, and the queue's
// workers taking each one freed), a read and a write wait for a
// connection at most the bound, then fail as the database being
// unreachable, rather than wait until one is free; once one is, they work.
func TestTheWaitForAConnectionIsBounded(t *testing.T) {
	db, _ := openCutPostgres(t)
	pool := storage.JobPool(db)
	ctx := context.Background()
	var held []*sql.Conn
	for range pool.Stats().MaxOpenConnections {
		c, err := pool.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	stores := db.Orders()
	calls := map[string]func() error{
		"a read":  func() error { _, err := db.ListTeams(ctx); return err },
		"a write": func() error { _, err := db.CreateTeam(ctx, "waiting"); return err },
		"a prepared read": func() error {
			_, err := stores.FindItemPrints(ctx, orders.Scope{TeamID: 1}, "", "no-such-item")
			return err
		},
	}
	for what, call := range calls {
		d, err := timed(t, what, 30*time.Second, call)
		if !apierr.Unreachable(err) || d > testBound+margin {
			t.Errorf("%s with every connection taken: %v after %s, want unreachable within %s", what, err, d, testBound+margin)
		}
	}
	for _, c := range held {
		c.Close()
	}
	for what, call := range calls {
		if _, err := timed(t, what, 30*time.Second, call); err != nil {
			t.Errorf("%s once connections are free: %v", what, err)
		}
	}
}
