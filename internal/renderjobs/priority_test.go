package renderjobs_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL for the queue's database
	"github.com/riverqueue/river"
	_ "modernc.org/sqlite" // SQLite for the queue's database

	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/queue"
	"github.com/platen-print/platen/internal/renderjobs"
)

// orderWorker records the render jobs in the order they run, one at a
// time, and holds the job numbered holdAt until release is closed.
type orderWorker struct {
	river.WorkerDefaults[renderjobs.RenderArgs]
	ran     chan string
	holdAt  string
	held    chan struct{}
	release chan struct{}
}

func (w *orderWorker) Work(ctx context.Context, job *river.Job[renderjobs.RenderArgs]) error {
	if job.Args.ItemUID == w.holdAt {
		close(w.held)
		<-w.release
	}
	w.ran <- job.Args.ItemUID
	return nil
}

// TestATeamsRendersRunInTheOrderQueued: renders queued while the team's
// queue was long (at a later priority) are not passed by the team's own
// renders queued after them when the queue has shrunk meanwhile. Under a
// team's steady load they were, for as long as the load lasted.
func TestATeamsRendersRunInTheOrderQueued(t *testing.T) {
	for _, b := range platentest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			db, dialect := queueDatabase(t, b)
			ctx := context.Background()
			if err := queue.Migrate(ctx, db, dialect); err != nil {
				t.Fatal(err)
			}
			w := &orderWorker{ran: make(chan string, 64), holdAt: "item-10", held: make(chan struct{}), release: make(chan struct{})}
			workers := river.NewWorkers()
			river.AddWorker(workers, w)
			// One render at a time, so the order they run in is River's.
			q, err := queue.New(db, dialect, workers, queue.Config{Queues: map[string]int{renderjobs.RenderQueue: 1}, PollInterval: 50 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			jobs := renderjobs.NewJobs(q)
			var queued []string
			for i := range 20 { // the last four at the third priority
				queued = append(queued, fmt.Sprintf("item-%d", i))
			}
			enqueue(t, db, jobs, queued)
			if err := q.Start(ctx); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = q.Stop(context.Background()) })
			select {
			case <-w.held: // ten ran; ten are left, counting the one running
			case <-time.After(30 * time.Second):
				t.Fatal("the eleventh render never started")
			}
			enqueue(t, db, jobs, []string{"late"})
			close(w.release)
			var order []string
			for len(order) < 21 {
				select {
				case uid := <-w.ran:
					order = append(order, uid)
				case <-time.After(30 * time.Second):
					t.Fatalf("after %v, no render ran for 30 s", order)
				}
			}
			if want := append(slices.Clone(queued), "late"); !slices.Equal(order, want) {
				t.Errorf("renders ran in the order\n%v\nwant the order they were queued in\n%v", order, want)
			}
		})
	}
}

func enqueue(t *testing.T, db *sql.DB, jobs *renderjobs.Jobs, uids []string) {
	t.Helper()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := jobs.EnqueueRenders(context.Background(), tx, 7, uids); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// queueDatabase is a fresh database on b for a queue of its own.
func queueDatabase(t *testing.T, b platentest.Backend) (*sql.DB, string) {
	t.Helper()
	driver, dialect, dsn := "pgx", "postgres", b.NewDatabaseURL(t)
	if dsn == "" {
		driver, dialect = "sqlite", "sqlite3"
		dsn = "file:" + filepath.Join(t.TempDir(), "q.db") + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_txlock=immediate"
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if dialect == "sqlite3" {
		db.SetMaxOpenConns(1)
	}
	t.Cleanup(func() { db.Close() })
	return db, dialect
}
