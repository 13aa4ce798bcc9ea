package queue_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/riverqueue/river"
	_ "modernc.org/sqlite"

	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
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

// databases are a fresh database on each backend (platentest.Backends),
// by the dialect queue takes: SQLite in a file of one connection, as
// `platen serve` writes, and PostgreSQL in a schema of its own.
func databases(t *testing.T) map[string]*sql.DB {
	t.Helper()
	dbs := map[string]*sql.DB{}
	for _, b := range platentest.Backends() {
		switch b.Name {
		case "sqlite":
			dbs["sqlite3"] = openSQLite(t)
		case "postgres":
			dbs["postgres"] = openPostgres(t, b.NewDatabaseURL(t))
		default:
			t.Fatalf("no queue dialect for the %s backend", b.Name)
		}
	}
	return dbs
}

func openSQLite(t *testing.T) *sql.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "q.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func openPostgres(t *testing.T, url string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
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
			// The job that ran is done, and it is the only one there is:
			// the rolled-back insert left no row that anything could run.
			const committed = `{"Text":"committed"} completed`
			poll.Until(t, 10*time.Second, "the committed job completed", func() bool {
				return slices.Contains(noteJobs(t, db), committed)
			})
			if jobs := noteJobs(t, db); !slices.Equal(jobs, []string{committed}) {
				t.Errorf("note jobs %q, want the committed one alone", jobs)
			}
			select {
			case got := <-w.seen:
				t.Fatalf("also ran %q", got)
			default:
			}
		})
	}
}

// noteJobs lists the note jobs in the database as "<args> <state>".
func noteJobs(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT args, state FROM river_job WHERE kind = 'test_note' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var jobs []string
	for rows.Next() {
		var args []byte
		var state string
		if err := rows.Scan(&args, &state); err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, args); err != nil {
			t.Fatalf("args %q: %v", args, err)
		}
		jobs = append(jobs, compact.String()+" "+state)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return jobs
}

// faultyDatabase is a database whose writes fault can make fail.
type faultyDatabase struct {
	db    *sql.DB
	fault platentest.WriteFault
}

// faultyDatabases are a database on each backend whose writes the fault
// can make fail: SQLite (one connection, as `platen serve` writes), and
// PostgreSQL as a role that the fault turns read-only.
func faultyDatabases(t *testing.T) map[string]faultyDatabase {
	t.Helper()
	dbs := map[string]faultyDatabase{}
	for _, b := range platentest.Backends() {
		switch b.Name {
		case "sqlite":
			lite := openSQLite(t)
			dbs["sqlite3"] = faultyDatabase{lite, func(t *testing.T, refuse bool) {
				t.Helper()
				pragma := "PRAGMA query_only = " + map[bool]string{true: "ON", false: "OFF"}[refuse]
				if _, err := lite.Exec(pragma); err != nil {
					t.Fatal(err)
				}
			}}
		case "postgres":
			url, fault := platentest.ReadOnlyPostgres(t, b)
			dbs["postgres"] = faultyDatabase{openPostgres(t, url), fault}
		default:
			t.Fatalf("no queue dialect for the %s backend", b.Name)
		}
	}
	return dbs
}

type stuckArgs struct{}

func (stuckArgs) Kind() string { return "test_stuck" }

// stuckWorker reports each run's attempt; the first run returns only once
// the test releases it, after making the database refuse writes, so that
// River cannot record its outcome.
type stuckWorker struct {
	river.WorkerDefaults[stuckArgs]
	runs    chan int
	release chan struct{}
}

func (w *stuckWorker) Work(ctx context.Context, job *river.Job[stuckArgs]) error {
	w.runs <- job.Attempt
	if job.Attempt == 1 {
		<-w.release
	}
	return nil
}

func startQueue(t *testing.T, db *sql.DB, dialect string, workers *river.Workers, cfg queue.Config) *queue.Queue {
	t.Helper()
	q := newQueue(t, db, dialect, workers, cfg)
	start(t, q)
	return q
}

// newQueue is a queue on db, its schema migrated, not started yet.
func newQueue(t *testing.T, db *sql.DB, dialect string, workers *river.Workers, cfg queue.Config) *queue.Queue {
	t.Helper()
	if err := queue.Migrate(context.Background(), db, dialect); err != nil {
		t.Fatal(err)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	q, err := queue.New(db, dialect, workers, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// start starts q, to be stopped when the test ends.
func start(t *testing.T, q *queue.Queue) {
	t.Helper()
	ctx := context.Background()
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stop, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_ = q.Stop(stop)
	})
}

func insert(t *testing.T, db *sql.DB, q *queue.Queue, args river.JobArgs, opts *river.InsertOpts) {
	t.Helper()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if err := q.InsertTx(context.Background(), tx, args, opts); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// completerGaveUp ends the message River's completer logs when it drops a
// job's outcome after its last try to write it (in the River version
// TestRiverVersionChecked names).
const completerGaveUp = "Too many errors; giving up"

// announcer is a log handler that closes said when River logs message
// (the end of message, after River's name for the service).
type announcer struct {
	slog.Handler
	message string
	once    *sync.Once
	said    chan struct{}
}

func newAnnouncer(message string) announcer {
	return announcer{Handler: slog.NewTextHandler(io.Discard, nil), message: message, once: &sync.Once{}, said: make(chan struct{})}
}

func (a announcer) Handle(ctx context.Context, r slog.Record) error {
	if strings.HasSuffix(r.Message, a.message) {
		a.once.Do(func() { close(a.said) })
	}
	return a.Handler.Handle(ctx, r)
}

func (a announcer) WithAttrs(attrs []slog.Attr) slog.Handler {
	a.Handler = a.Handler.WithAttrs(attrs)
	return a
}

func (a announcer) WithGroup(name string) slog.Handler {
	a.Handler = a.Handler.WithGroup(name)
	return a
}

// stuckReclaimAfter is the test's reclaim wait: short, for the test's
// sake; the default outlasts River's completer (see DefaultReclaimAfter),
// which the test waits for instead.
const stuckReclaimAfter = time.Second

// TestStuckJobReclaimed: a job whose outcome River could not write (the
// database refused writes when it ended, long enough for River to give
// up) stays running while writes fail, then runs again and completes
// within seconds once writes come back, rather than after River's rescue
// window (RescueAfter, 3 minutes here as in `platen serve`).
func TestStuckJobReclaimed(t *testing.T) {
	for dialect, fdb := range faultyDatabases(t) {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			w := &stuckWorker{runs: make(chan int, 4), release: make(chan struct{})}
			workers := river.NewWorkers()
			river.AddWorker(workers, w)
			gaveUp := newAnnouncer(completerGaveUp)
			q := startQueue(t, fdb.db, dialect, workers, queue.Config{
				Workers: 2, PollInterval: 50 * time.Millisecond, ID: "platen-test",
				JobTimeout: time.Minute, RescueAfter: 3 * time.Minute,
				ReclaimAfter: stuckReclaimAfter, Logger: slog.New(gaveUp),
			})
			insert(t, fdb.db, q, stuckArgs{}, nil)
			if attempt := receive(t, w.runs, 10*time.Second); attempt != 1 {
				t.Fatalf("first run: attempt %d", attempt)
			}
			fdb.fault(t, true)
			close(w.release)
			ended := time.Now()
			// River's completer tries three times over about 7 s, then
			// drops the outcome: the job stays running in the database.
			// The fault outlasts those tries and the reclaim wait, as an
			// outage would.
			select {
			case <-gaveUp.said:
			case <-time.After(30 * time.Second):
				t.Fatalf("River's completer never said %q: see TestRiverVersionChecked", completerGaveUp)
			}
			time.Sleep(stuckReclaimAfter - time.Since(ended)) // none: the tries outlast it
			if state := jobState(t, fdb.db); state != "running" {
				t.Fatalf("state %q while writes fail, want running", state)
			}
			fdb.fault(t, false)
			cleared := time.Now()
			if attempt := receive(t, w.runs, 30*time.Second); attempt != 2 {
				t.Fatalf("second run: attempt %d", attempt)
			}
			again := time.Now()
			var state string
			if !poll.Within(5*time.Second, nil, func() bool { state = jobState(t, fdb.db); return state == "completed" }) {
				t.Fatalf("state %q after the second run", state)
			}
			// The reclaimed attempt carries an error of its own, so that
			// the run is not counted as interrupted (a render interrupted
			// twice fails; this one ran to its end).
			query := `SELECT json_extract(errors, '$[0].error') FROM river_job`
			if dialect == "postgres" {
				query = `SELECT errors[1]->>'error' FROM river_job`
			}
			var recorded sql.NullString
			if err := fdb.db.QueryRow(query).Scan(&recorded); err != nil || recorded.String != queue.ReclaimedError {
				t.Errorf("the reclaimed attempt's error: %q (%v), want %q", recorded.String, err, queue.ReclaimedError)
			}
			t.Logf("ran again %v after the first run ended, %v after writes came back; completed %v later",
				again.Sub(ended).Round(time.Millisecond), again.Sub(cleared).Round(time.Millisecond), time.Since(again).Round(time.Millisecond))
			if d := again.Sub(cleared); d > 5*time.Second {
				t.Errorf("ran again %v after writes came back, want within 5s", d)
			}
		})
	}
}

type slowArgs struct{ For time.Duration }

func (slowArgs) Kind() string { return "test_slow" }

type slowWorker struct {
	river.WorkerDefaults[slowArgs]
	runs atomic.Int64
}

func (w *slowWorker) Work(ctx context.Context, job *river.Job[slowArgs]) error {
	w.runs.Add(1)
	time.Sleep(job.Args.For)
	return nil
}

// TestReclaimLeavesRunningJobs: with a reclaim wait far shorter than the
// jobs, a job this process is still working is never made available
// again, nor is a job another process is running.
func TestReclaimLeavesRunningJobs(t *testing.T) {
	for dialect, db := range databases(t) {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			w := &slowWorker{}
			workers := river.NewWorkers()
			river.AddWorker(workers, w)
			river.AddWorker(workers, &noteWorker{seen: make(chan string, 1)})
			q := startQueue(t, db, dialect, workers, queue.Config{
				Workers: 2, PollInterval: 50 * time.Millisecond, ID: "platen-test", ReclaimAfter: 500 * time.Millisecond,
			})
			insert(t, db, q, slowArgs{For: 7 * time.Second}, nil)
			insert(t, db, q, noteArgs{Text: "another process's"}, &river.InsertOpts{Queue: "elsewhere"})
			markOthers(t, db, dialect)
			// Its 7 s hold a sweep every 2 s, each long past the wait.
			poll.Until(t, 30*time.Second, "the slow job completed", func() bool {
				var state string
				err := db.QueryRow(`SELECT state FROM river_job WHERE kind = 'test_slow'`).Scan(&state)
				return err == nil && state == "completed"
			})
			if n := w.runs.Load(); n != 1 {
				t.Errorf("the slow job ran %d times, want once", n)
			}
			var state string
			var attempt int
			err := db.QueryRow(`SELECT state, attempt FROM river_job WHERE kind = 'test_slow'`).Scan(&state, &attempt)
			if err != nil || state != "completed" || attempt != 1 {
				t.Errorf("slow job: %s attempt %d (%v), want completed at attempt 1", state, attempt, err)
			}
			if err := db.QueryRow(`SELECT state FROM river_job WHERE kind = 'test_note'`).Scan(&state); err != nil || state != "running" {
				t.Errorf("another process's job: %s (%v), want running", state, err)
			}
		})
	}
}

// markOthers makes the note jobs (on a queue this process does not work)
// look run by another process.
func markOthers(t *testing.T, db *sql.DB, dialect string) {
	t.Helper()
	query := `UPDATE river_job SET state = 'running', attempt = 1,
		attempted_at = datetime('now'), attempted_by = json('["platen-other/0a1b2c3d"]') WHERE kind = 'test_note'`
	if dialect == "postgres" {
		query = `UPDATE river_job SET state = 'running', attempt = 1,
			attempted_at = now(), attempted_by = ARRAY['platen-other/0a1b2c3d'] WHERE kind = 'test_note'`
	}
	if _, err := db.Exec(query); err != nil {
		t.Fatal(err)
	}
}

func receive(t *testing.T, ch <-chan int, within time.Duration) int {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(within):
		t.Fatalf("nothing within %v", within)
		return 0
	}
}

// jobState reads the stuck job's state. A PostgreSQL session the fault
// ended fails its next use (SQLSTATE 57P01, "terminating connection due to
// administrator command") and leaves the pool: a failed read is read
// again, on another session, for a few seconds.
func jobState(t *testing.T, db *sql.DB) string {
	t.Helper()
	var state string
	var err error
	if !poll.Within(5*time.Second, nil, func() bool {
		err = db.QueryRow(`SELECT state FROM river_job WHERE kind = 'test_stuck'`).Scan(&state)
		return err == nil
	}) {
		t.Fatal(err)
	}
	return state
}

// markRunning makes job id look running, attempted last by the last of by
// (River's attempted_by lists every attempt's client).
func markRunning(t *testing.T, db *sql.DB, dialect string, id int64, by ...string) {
	t.Helper()
	list, err := json.Marshal(by)
	if err != nil {
		t.Fatal(err)
	}
	query := `UPDATE river_job SET state = 'running', attempt = ?, attempted_at = datetime('now'), attempted_by = json(?) WHERE id = ?`
	args := []any{len(by), string(list), id}
	if dialect == "postgres" {
		query = `UPDATE river_job SET state = 'running', attempt = $1, attempted_at = now(),
			attempted_by = ARRAY(SELECT json_array_elements_text($2::json)) WHERE id = $3`
	}
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatal(err)
	}
}

// jobStates are the note jobs' states by id.
func jobStates(t *testing.T, db *sql.DB) map[int64]string {
	t.Helper()
	rows, err := db.Query(`SELECT id, state FROM river_job WHERE kind = 'test_note'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	states := map[int64]string{}
	for rows.Next() {
		var id int64
		var state string
		if err := rows.Scan(&id, &state); err != nil {
			t.Fatal(err)
		}
		states[id] = state
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return states
}

// TestRescueTakesItsOwnJobs: on PostgreSQL, which several processes may
// share, Rescue makes available the running jobs last attempted by this
// process (any run of it, or before runs had suffixes) and leaves the
// others' (a name it prefixes included); a process with no ID takes none.
// On SQLite, which one process owns, it takes every running job.
func TestRescueTakesItsOwnJobs(t *testing.T) {
	for dialect, db := range databases(t) {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			if err := queue.Migrate(ctx, db, dialect); err != nil {
				t.Fatal(err)
			}
			workers := river.NewWorkers()
			river.AddWorker(workers, &noteWorker{seen: make(chan string, 8)})
			// Insert-only clients: nothing here works the jobs.
			q, err := queue.New(db, dialect, workers, queue.Config{ID: "platen-a"})
			if err != nil {
				t.Fatal(err)
			}
			tx, err := db.Begin()
			if err != nil {
				t.Fatal(err)
			}
			names := []string{"own run", "own, before suffixes", "own after another's", "another's after own", "prefixed name", "another's"}
			ids, err := q.InsertEachTx(ctx, tx, names, func(name string) river.JobArgs { return noteArgs{Text: name} })
			if err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			byName := map[string]int64{}
			for i, name := range names {
				byName[name] = ids[i]
			}
			markRunning(t, db, dialect, byName["own run"], "platen-a/0a1b2c3d")
			markRunning(t, db, dialect, byName["own, before suffixes"], "platen-a")
			markRunning(t, db, dialect, byName["own after another's"], "platen-b/11111111", "platen-a/22222222")
			markRunning(t, db, dialect, byName["another's after own"], "platen-a/22222222", "platen-b/11111111")
			markRunning(t, db, dialect, byName["prefixed name"], "platen-ab/0a1b2c3d")
			markRunning(t, db, dialect, byName["another's"], "platen-b/0a1b2c3d")

			if dialect == "postgres" {
				anonymous, err := queue.New(db, dialect, workers, queue.Config{})
				if err != nil {
					t.Fatal(err)
				}
				if n, err := anonymous.Rescue(ctx); err != nil || n != 0 {
					t.Errorf("a process without an ID rescued %d jobs (%v), want none", n, err)
				}
			}
			n, err := q.Rescue(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{
				"own run": "available", "own, before suffixes": "available", "own after another's": "available",
				"another's after own": "running", "prefixed name": "running", "another's": "running",
			}
			if dialect != "postgres" {
				for name := range want {
					want[name] = "available"
				}
			}
			wantN := 0
			states := jobStates(t, db)
			for name, state := range want {
				if state == "available" {
					wantN++
				}
				if got := states[byName[name]]; got != state {
					t.Errorf("%s: %s, want %s", name, got, state)
				}
			}
			if n != int64(wantN) {
				t.Errorf("Rescue answered %d, want %d", n, wantN)
			}
		})
	}
}

// TestLongIDIsCut: an ID longer than River allows (100 characters, less
// the run's suffix) is cut rather than refused.
func TestLongIDIsCut(t *testing.T) {
	db := openSQLite(t)
	long := strings.Repeat("h", 150)
	q, err := queue.New(db, "sqlite3", river.NewWorkers(), queue.Config{ID: long})
	if err != nil {
		t.Fatalf("a 150-character ID: %v", err)
	}
	if id := q.Client().ID(); len(id) > 100 || !strings.HasPrefix(id, long[:91]+"/") {
		t.Errorf("River ID %q (%d characters), want the ID's first 91 characters and the run's suffix", id, len(id))
	}
	if _, err := queue.New(db, "mysql", river.NewWorkers(), queue.Config{}); err == nil {
		t.Error("a queue on a dialect without a River driver")
	}
}

// TestWakeStartsCommittedJobs: a job committed in a transaction starts
// once Wake is called, long before the next poll; a client that works no
// jobs queues nothing.
func TestWakeStartsCommittedJobs(t *testing.T) {
	for dialect, db := range databases(t) {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			w := &noteWorker{seen: make(chan string, 4)}
			workers := river.NewWorkers()
			river.AddWorker(workers, w)
			q := startQueue(t, db, dialect, workers, queue.Config{Workers: 1, PollInterval: 10 * time.Minute})
			// A first job inserted outside a transaction (which makes River
			// fetch at once), seen completed, shows the workers running and
			// past their fetches.
			if _, err := q.Client().Insert(ctx, noteArgs{Text: "first"}, nil); err != nil {
				t.Fatal(err)
			}
			select {
			case got := <-w.seen:
				if got != "first" {
					t.Fatalf("ran %q", got)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the first job never ran")
			}
			poll.Until(t, 30*time.Second, "the first job completed", func() bool {
				return slices.Contains(noteJobs(t, db), `{"Text":"first"} completed`)
			})

			insert(t, db, q, noteArgs{Text: "committed"}, nil)
			if err := q.Wake(ctx, river.QueueDefault); err != nil {
				t.Fatal(err)
			}
			select {
			case got := <-w.seen:
				if got != "committed" {
					t.Fatalf("ran %q", got)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the committed job did not start within 30 s of Wake (the poll is every 10 minutes)")
			}

			inserter, err := queue.New(db, dialect, workers, queue.Config{})
			if err != nil {
				t.Fatal(err)
			}
			if err := inserter.Wake(ctx, river.QueueDefault); err != nil {
				t.Errorf("Wake on a client that works no jobs: %v", err)
			}
			// On SQLite a wake is a job; on PostgreSQL a NOTIFY.
			want := 1
			if dialect == "postgres" {
				want = 0
			}
			var wakes int
			if err := db.QueryRow(`SELECT count(*) FROM river_job WHERE kind = 'queue_wake'`).Scan(&wakes); err != nil || wakes != want {
				t.Errorf("%d wake jobs (%v), want %d", wakes, err, want)
			}
		})
	}
}

// TestWakeSoonCoalesces: on SQLite, which cannot LISTEN and wakes with a
// job, many commits asking at once to wake a queue start their jobs long
// before the next poll, with a wake or two in all rather than one each;
// and a queue that is stopping wakes nothing. (On PostgreSQL a wake is a
// NOTIFY: TestNotifyStartsCommittedJobs.)
func TestWakeSoonCoalesces(t *testing.T) {
	for dialect, db := range databases(t) {
		if dialect == "postgres" {
			continue
		}
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			w := &noteWorker{seen: make(chan string, 64)}
			workers := river.NewWorkers()
			river.AddWorker(workers, w)
			q := startQueue(t, db, dialect, workers, queue.Config{Workers: 4, PollInterval: 10 * time.Minute})
			const commits = 20
			for i := range commits {
				insert(t, db, q, noteArgs{Text: fmt.Sprint(i)}, nil)
			}
			// The asks come back to back from one goroutine, as commits
			// finishing together do: asks from goroutines of their own
			// may start a wake's time apart on a busy machine, and each
			// such straggler rightly costs a wake of its own.
			for range commits {
				q.WakeSoon(river.QueueDefault)
			}
			for i := range commits {
				select {
				case <-w.seen:
				case <-time.After(30 * time.Second):
					t.Fatalf("%d of %d jobs ran within 30 s of the wakes (the poll is every 10 minutes)", i, commits)
				}
			}
			var wakes int
			if err := db.QueryRow(`SELECT count(*) FROM river_job WHERE kind = 'queue_wake'`).Scan(&wakes); err != nil {
				t.Fatal(err)
			}
			if wakes < 1 || wakes > 2 {
				t.Errorf("%d wake jobs for %d wakes asked at once, want 1 or 2", wakes, commits)
			}

			stop, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := q.Stop(stop); err != nil {
				t.Fatal(err)
			}
			q.WakeSoon(river.QueueDefault)
			var after int
			if err := db.QueryRow(`SELECT count(*) FROM river_job WHERE kind = 'queue_wake'`).Scan(&after); err != nil || after != wakes {
				t.Errorf("%d wake jobs after a wake asked of a stopped queue (%v), want %d", after, err, wakes)
			}
		})
	}
}

// TestNotifyStartsCommittedJobs: on PostgreSQL River listens, and a wake
// is a NOTIFY. River notifies in the inserting transaction too, but at
// most once per queue every few milliseconds: a job queued right after
// another, and committed after the workers fetched that one, would wait
// for the poll without WakeSoon. Such jobs start long before the next
// poll, so does a job another process (a client that works no jobs)
// commits and wakes, and no wake job is written.
func TestNotifyStartsCommittedJobs(t *testing.T) {
	db, ok := databases(t)["postgres"]
	if !ok {
		t.Skip("PostgreSQL only (set PLATEN_TEST_POSTGRES_URL)")
	}
	ctx := context.Background()
	w := &noteWorker{seen: make(chan string, 64)}
	workers := river.NewWorkers()
	river.AddWorker(workers, w)
	q := startQueue(t, db, "postgres", workers, queue.Config{Workers: 4, PollInterval: 10 * time.Minute})
	// A notification sent before River's LISTEN is lost to the poll: commit
	// until one job runs, a second apart.
	poll.Until(t, 30*time.Second, "a committed job ran once the client listened", func() bool {
		insert(t, db, q, noteArgs{Text: "warm-up"}, nil)
		select {
		case <-w.seen:
			return true
		case <-time.After(time.Second):
			return false
		}
	})
	const pollNote = "(the poll is every 10 minutes)"
	for i := range 5 {
		first, second := fmt.Sprintf("first %d", i), fmt.Sprintf("second %d", i)
		// River's own notification of this insert may be the one its
		// limiter drops (one a queue every few milliseconds, and the job
		// before ran just now): the product wakes after every commit, and
		// so does the test.
		insert(t, db, q, noteArgs{Text: first}, nil)
		q.WakeSoon(river.QueueDefault)
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		// A failure below must not leave the transaction open: the
		// schema's cleanup would wait on it for ever.
		defer func() { _ = tx.Rollback() }()
		if err := q.InsertTx(ctx, tx, noteArgs{Text: second}, nil); err != nil {
			t.Fatal(err)
		}
		awaitNote(t, w, first, "within 30 s of its commit "+pollNote)
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		q.WakeSoon(river.QueueDefault)
		awaitNote(t, w, second, "within 30 s of its commit and wake "+pollNote)
	}
	other, err := queue.New(db, "postgres", workers, queue.Config{})
	if err != nil {
		t.Fatal(err)
	}
	insert(t, db, other, noteArgs{Text: "another process's"}, nil)
	other.WakeSoon(river.QueueDefault)
	awaitNote(t, w, "another process's", "within 30 s of its commit "+pollNote)
	var wakes int
	if err := db.QueryRow(`SELECT count(*) FROM river_job WHERE kind = 'queue_wake'`).Scan(&wakes); err != nil || wakes != 0 {
		t.Errorf("%d wake jobs (%v), want none", wakes, err)
	}
}

// awaitNote waits for the note job of text to run, passing over others.
func awaitNote(t *testing.T, w *noteWorker, text, within string) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case got := <-w.seen:
			if got == text {
				return
			}
		case <-timeout:
			t.Fatalf("the job %q did not run %s", text, within)
		}
	}
}

type holdArgs struct{}

func (holdArgs) Kind() string { return "test_hold" }

// holdWorker runs until released, and reports a context that ended first.
type holdWorker struct {
	river.WorkerDefaults[holdArgs]
	started, release chan struct{}
	interrupted      chan error
}

func (w *holdWorker) Work(ctx context.Context, _ *river.Job[holdArgs]) error {
	w.started <- struct{}{}
	select {
	case <-ctx.Done():
		w.interrupted <- context.Cause(ctx)
		return ctx.Err()
	case <-w.release:
		return nil
	}
}

// TestCancelLetsRunningJobFinish: a job cancelled while it runs (a render
// superseded by an edit) runs to its end on both databases, so that it
// can see it was superseded and remove what it stored; on PostgreSQL River
// hears the cancel and would otherwise end the job's context at once.
func TestCancelLetsRunningJobFinish(t *testing.T) {
	for dialect, db := range databases(t) {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			w := &holdWorker{started: make(chan struct{}, 1), release: make(chan struct{}), interrupted: make(chan error, 1)}
			workers := river.NewWorkers()
			river.AddWorker(workers, w)
			q := startQueue(t, db, dialect, workers, queue.Config{Workers: 1, PollInterval: 50 * time.Millisecond})
			res, err := q.Client().Insert(ctx, holdArgs{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-w.started:
			case <-time.After(30 * time.Second):
				t.Fatal("the job never started")
			}
			tx, err := db.Begin()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := q.Client().JobCancelTx(ctx, tx, res.Job.ID); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			// River's cancel, when heard, ends a job's context within
			// milliseconds of the commit.
			select {
			case cause := <-w.interrupted:
				t.Fatalf("the running job was interrupted by its cancel: %v", cause)
			case <-time.After(2 * time.Second):
			}
			close(w.release)
			poll.Until(t, 30*time.Second, "the job ended", func() bool {
				var state string
				if err := db.QueryRow(`SELECT state FROM river_job WHERE id = `+placeholder(dialect, 1), res.Job.ID).Scan(&state); err != nil {
					t.Fatal(err)
				}
				return state != "running"
			})
		})
	}
}

// placeholder is the dialect's nth query parameter.
func placeholder(dialect string, n int) string {
	if dialect == "postgres" {
		return fmt.Sprintf("$%d", n)
	}
	return "?"
}
