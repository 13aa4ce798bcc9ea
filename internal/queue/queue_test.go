package queue_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/riverqueue/river"
	_ "modernc.org/sqlite"

	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/queue"
)

type noteArgs struct{ Text string }

func (noteArgs) Kind() string { return "test_note" }

type noteWorker struct {
	river.WorkerDefaults[noteArgs]
	seen chan string
}

func (w *noteWorker) Work(_ context.Context, job *river.Job[noteArgs]) error {
	w.seen <- job.Args.Text
	return nil
}

func databases(t *testing.T) map[string]*sql.DB {
	t.Helper()
	dbs := map[string]*sql.DB{}
	path := filepath.Join(t.TempDir(), "q.db")
	lite, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	lite.SetMaxOpenConns(1)
	dbs["sqlite3"] = lite
	if base := os.Getenv(platentest.PostgresEnv); base != "" {
		pg, err := sql.Open("pgx", platentest.FreshPostgresSchema(t, base))
		if err != nil {
			t.Fatal(err)
		}
		dbs["postgres"] = pg
	}
	for _, db := range dbs {
		t.Cleanup(func() { db.Close() })
	}
	return dbs
}

// TestJobsFollowTheirTransaction: a job inserted in a transaction runs
// once it commits, and never when it rolls back.
func TestJobsFollowTheirTransaction(t *testing.T) {
	for dialect, db := range databases(t) {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			if err := queue.Migrate(ctx, db, dialect); err != nil {
				t.Fatal(err)
			}
			if err := queue.Migrate(ctx, db, dialect); err != nil {
				t.Fatalf("second migrate: %v", err)
			}
			w := &noteWorker{seen: make(chan string, 4)}
			workers := river.NewWorkers()
			river.AddWorker(workers, w)
			q, err := queue.New(db, dialect, workers, queue.Config{Workers: 2, PollInterval: 50 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if err := q.Start(ctx); err != nil {
				t.Fatal(err)
			}
			defer func() {
				stop, cancel := context.WithTimeout(ctx, 5*time.Second)
				defer cancel()
				_ = q.Stop(stop)
			}()
			for _, text := range []string{"rolled back", "committed"} {
				tx, err := db.BeginTx(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				if err := q.InsertTx(ctx, tx, noteArgs{Text: text}, nil); err != nil {
					t.Fatal(err)
				}
				if text == "committed" {
					err = tx.Commit()
				} else {
					err = tx.Rollback()
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			select {
			case got := <-w.seen:
				if got != "committed" {
					t.Fatalf("ran %q", got)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the committed job never ran")
			}
			select {
			case got := <-w.seen:
				t.Fatalf("also ran %q", got)
			case <-time.After(300 * time.Millisecond):
			}
		})
	}
}
