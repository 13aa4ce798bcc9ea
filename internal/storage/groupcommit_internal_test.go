package storage

import (
	"context"
	"errors"
	"maps"
	"sync/atomic"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/platentest/poll"
)

// slowInsert writes the row (who, n) after counting to n in a recursive
// query: one write statement that runs for as long as the count takes.
const slowInsert = `INSERT INTO gc_probe (who, n)
	WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < ?)
	SELECT ?, count(*) FROM c`

// A writer whose caller goes away while its statement runs, in a group with
// others, neither has the statement interrupted nor fails the group (SQLite
// rolls back the whole transaction of an interrupted write): every write
// commits, the left one's too, and its caller is told it did. A writer whose
// caller went away before its turn is told so and writes nothing, and the
// others still commit.
func TestGroupCommitOutlivesCancelledWriters(t *testing.T) {
	db, err := Open("", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.writePool.Exec(`CREATE TABLE gc_probe (who TEXT NOT NULL, n INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	count, leaveAfter := slowStatement(t, db)
	g := db.group

	// Hold the committer in a write of its own, so that the writes below
	// queue behind it and then share one commit.
	held, release := make(chan struct{}), make(chan struct{})
	holder := make(chan error, 1)
	go func() {
		holder <- g.do(context.Background(), func(context.Context, *Tx) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held

	leaving, leave := context.WithCancel(context.Background())
	defer leave()
	var leftDuring atomic.Bool
	gone, goneAway := context.WithCancel(context.Background())
	writes := []struct {
		who string
		ctx context.Context
		fn  txFunc
	}{
		{"first", context.Background(), insertProbe("first", 1)},
		{"leaving", leaving, func(ctx context.Context, tx *Tx) error {
			timer := time.AfterFunc(leaveAfter, leave)
			defer timer.Stop()
			_, err := tx.SQL.ExecContext(ctx, slowInsert, count, "leaving")
			leftDuring.Store(leaving.Err() != nil)
			return err
		}},
		{"gone", gone, insertProbe("gone", 1)},
		{"last", context.Background(), insertProbe("last", 1)},
	}
	results := make([]chan error, len(writes))
	for i, w := range writes {
		results[i] = make(chan error, 1)
		go func() { results[i] <- g.do(w.ctx, w.fn) }()
		waitQueued(t, g, i+1)
	}
	goneAway()
	close(release)

	if err := <-holder; err != nil {
		t.Fatalf("the holding write: %v", err)
	}
	for i, w := range writes {
		err := <-results[i]
		switch {
		case w.who == "gone" && !errors.Is(err, context.Canceled):
			t.Errorf("write %q, its caller gone before its turn: got %v, want context.Canceled", w.who, err)
		case w.who != "gone" && err != nil:
			t.Errorf("write %q: %v", w.who, err)
		}
	}
	if !leftDuring.Load() {
		t.Fatalf("the slow statement (%d rows) ended before its caller left after %s: the test proved nothing", count, leaveAfter)
	}
	if shared := g.sharedCommits.Load(); shared != 1 {
		t.Errorf("%d shared commits, want the 4 writes in 1", shared)
	}
	want := map[string]int{"first": 1, "leaving": count, "last": 1}
	if got := probeRows(t, db); !maps.Equal(got, want) {
		t.Errorf("rows committed: %v, want %v", got, want)
	}
}

func insertProbe(who string, n int) txFunc {
	return func(ctx context.Context, tx *Tx) error {
		_, err := tx.SQL.ExecContext(ctx, slowInsert, n, who)
		return err
	}
}

// slowStatement returns the count that makes slowInsert last about 300 ms
// on this machine (a race build runs SQLite tens of times slower), and how
// long after its start to cancel it: well within it.
func slowStatement(t *testing.T, db *DB) (int, time.Duration) {
	t.Helper()
	for n := 1000; ; n *= 2 {
		start := time.Now()
		if _, err := db.writePool.Exec(slowInsert, n, "calibration"); err != nil {
			t.Fatal(err)
		}
		if time.Since(start) >= 100*time.Millisecond {
			if _, err := db.writePool.Exec(`DELETE FROM gc_probe`); err != nil {
				t.Fatal(err)
			}
			return 3 * n, 30 * time.Millisecond
		}
	}
}

// waitQueued waits until n writes wait in the committer's queue.
func waitQueued(t *testing.T, g *groupCommitter, n int) {
	t.Helper()
	if !poll.Within(10*time.Second, nil, func() bool { return len(g.queue) >= n }) {
		t.Fatalf("%d writes queued, want %d", len(g.queue), n)
	}
}

func probeRows(t *testing.T, db *DB) map[string]int {
	t.Helper()
	rows, err := db.readPool.Query(`SELECT who, n FROM gc_probe`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]int{}
	for rows.Next() {
		var who string
		var n int
		if err := rows.Scan(&who, &n); err != nil {
			t.Fatal(err)
		}
		got[who] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}
