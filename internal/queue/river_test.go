package queue_test

import (
	"context"
	"database/sql"
	"os/exec"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"

	"github.com/platen-print/platen/internal/platentest/poll"
	"github.com/platen-print/platen/internal/queue"
)

// checkedRiverVersion is the River version whose behaviour beyond its API
// (what reCheck lists) queue was checked against. Change it only once each
// of those has been checked again on the new version.
const checkedRiverVersion = "v0.31.0"

// reCheck is what queue relies on of River beyond its API: what to read
// again in River's source when River changes.
const reCheck = `re-check what queue relies on of River beyond its API:
  - the rescuer's error text, "Stuck job rescued by JobRescuer" (river.go RescuedByRiver; TestRiverRescueRecognised);
  - JobSnooze taking back the attempt its fetch added, and counting "snoozes" in the job's metadata (river.go Postpone, Snoozes; TestPostponeCountsNoAttempt);
  - the completer's three tries about 1, 2 and 4 s apart, which DefaultReclaimAfter must outlast, and its "Too many errors; giving up" (reclaim.go; TestStuckJobReclaimed);
  - the river_job columns the SQL reads and writes (id, queue, state, attempt, attempted_by, errors, args, scheduled_at) and the states it names
    (available, pending, retryable, running, scheduled, discarded) in reclaim.go, queue.go (Rescue, the team index, TeamBacklog) and metrics.go;
  - riversqlite keeping args as a blob of JSON text, and attempted_by and errors as JSON arrays (queue.go TeamBacklog, reclaim.go);
  - the poll-only notice's text (logs.go), the insert topic "river_insert" and its payload (queue.go Wake), and the listener's topics (listener.go)`

// riverModule is River's main module; its others share its path as a prefix.
const riverModule = "github.com/riverqueue/river"

// TestRiverVersionChecked fails when River's modules in the build are not
// the version queue was checked against, naming what to check again.
func TestRiverVersionChecked(t *testing.T) {
	modules := riverModules(t)
	if modules[riverModule] == "" {
		t.Fatalf("%s is not in the build: %v", riverModule, modules)
	}
	var other []string
	for path, version := range modules {
		if version != checkedRiverVersion {
			other = append(other, path+" "+version)
		}
	}
	if len(other) > 0 {
		slices.Sort(other)
		t.Errorf("River's modules are %s, but queue was checked against River %s: %s\nthen set checkedRiverVersion",
			strings.Join(other, ", "), checkedRiverVersion, reCheck)
	}
}

// riverModules are River's modules in the test binary, with the version
// each was built from (its replacement's, when replaced). They come from
// the binary's build information; go test leaves the dependencies out of
// it (golang/go#76926, "module deps not included in tests"), and then
// from `go list -m`, which answers for the go.mod this test was built
// with.
func riverModules(t *testing.T) map[string]string {
	t.Helper()
	info, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("the test binary has no build information")
	}
	modules := map[string]string{}
	for _, m := range info.Deps {
		if m.Replace != nil {
			m = m.Replace
		}
		if isRiver(m.Path) {
			modules[m.Path] = m.Version
		}
	}
	if len(modules) > 0 {
		return modules
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Path}} {{with .Replace}}{{or .Version .Path}}{{else}}{{.Version}}{{end}}", riverModule+"/...").Output()
	if err != nil {
		t.Fatalf("go list River's modules: %v", err)
	}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) != 2 || !isRiver(fields[0]) {
			t.Fatalf("go list answered %q", line)
		}
		modules[fields[0]] = fields[1]
	}
	return modules
}

func isRiver(path string) bool {
	return path == riverModule || strings.HasPrefix(path, riverModule+"/")
}

type rescuedArgs struct{}

func (rescuedArgs) Kind() string { return "test_rescued" }

type rescuedWorker struct {
	river.WorkerDefaults[rescuedArgs]
}

func (rescuedWorker) Work(context.Context, *river.Job[rescuedArgs]) error { return nil }

// TestRiverRescueRecognised: the error River's own rescuer records for a
// job left running past RescueAfter (its process gone) is one that
// RescuedByRiver recognises, and queue's own reclaim error is not.
func TestRiverRescueRecognised(t *testing.T) {
	const rescueAfter = time.Second
	for dialect, db := range databases(t) {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			workers := river.NewWorkers()
			river.AddWorker(workers, rescuedWorker{})
			q := newQueue(t, db, dialect, workers, queue.Config{
				Workers: 1, PollInterval: 50 * time.Millisecond, ID: "platen-test",
				JobTimeout: rescueAfter / 2, RescueAfter: rescueAfter,
			})
			// What a process that stopped during the job's first run leaves:
			// the job running under its name since before RescueAfter.
			started := time.Now().Add(-2 * rescueAfter)
			stuck, err := q.Client().Driver().GetExecutor().JobInsertFull(ctx, &riverdriver.JobInsertFullParams{
				Attempt: 1, AttemptedAt: &started, AttemptedBy: []string{"gone/00000000"},
				EncodedArgs: []byte(`{}`), Kind: rescuedArgs{}.Kind(), MaxAttempts: 5, Metadata: []byte(`{}`),
				Priority: 1, Queue: river.QueueDefault, ScheduledAt: &started, State: rivertype.JobStateRunning,
			})
			if err != nil {
				t.Fatal(err)
			}
			start(t, q) // River's rescuer looks for stuck jobs once the client leads
			var rescued *rivertype.JobRow
			poll.Until(t, 10*time.Second, "River's rescuer rescuing the job", func() bool {
				jobs, err := queue.Jobs(ctx, db, dialect, rescuedArgs{}.Kind())
				if err != nil || len(jobs) != 1 {
					t.Fatalf("jobs %v (%v), want the one", jobs, err)
				}
				rescued = jobs[0]
				return len(rescued.Errors) > 0
			})
			if rescued.ID != stuck.ID || len(rescued.Errors) != 1 {
				t.Fatalf("job %d with errors %+v, want job %d with one", rescued.ID, rescued.Errors, stuck.ID)
			}
			if e := rescued.Errors[0]; !queue.RescuedByRiver(e) {
				t.Errorf("River's rescuer recorded %q, which RescuedByRiver does not recognise: %s", e.Error, reCheck)
			}
			if queue.RescuedByRiver(rivertype.AttemptError{Error: queue.ReclaimedError}) {
				t.Error("RescuedByRiver recognises queue's own reclaim error")
			}
		})
	}
}

type postponedArgs struct{ Times int }

func (postponedArgs) Kind() string { return "test_postponed" }

// postponedWorker postpones each job Times times, then completes it,
// reporting each run's attempt.
type postponedWorker struct {
	river.WorkerDefaults[postponedArgs]
	attempts chan int
}

func (w *postponedWorker) Work(_ context.Context, job *river.Job[postponedArgs]) error {
	w.attempts <- job.Attempt
	if queue.Snoozes(job.JobRow) < job.Args.Times {
		return queue.Postpone(0)
	}
	return nil
}

// TestPostponeCountsNoAttempt: a job postponed twice runs three times,
// each as its first attempt, and Snoozes counts the postponements; Reopen
// then has it run again as the attempt after those it is given.
func TestPostponeCountsNoAttempt(t *testing.T) {
	for dialect, db := range databases(t) {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			w := &postponedWorker{attempts: make(chan int, 8)}
			workers := river.NewWorkers()
			river.AddWorker(workers, w)
			q := startQueue(t, db, dialect, workers, queue.Config{Workers: 1, PollInterval: 50 * time.Millisecond})
			insert(t, db, q, postponedArgs{Times: 2}, nil)
			for run := 1; run <= 3; run++ {
				if attempt := receive(t, w.attempts, 10*time.Second); attempt != 1 {
					t.Errorf("run %d: attempt %d, want 1: %s", run, attempt, reCheck)
				}
			}
			job := waitFinished(t, db, dialect, postponedArgs{}.Kind())
			if job.State != rivertype.JobStateCompleted || queue.Snoozes(job) != 2 {
				t.Errorf("job %s with %d snoozes, want completed with 2: %s", job.State, queue.Snoozes(job), reCheck)
			}

			n, err := queue.Reopen(ctx, db, dialect, postponedArgs{}.Kind(), 3)
			if err != nil || n != 1 {
				t.Fatalf("reopened %d jobs (%v), want 1", n, err)
			}
			if attempt := receive(t, w.attempts, 10*time.Second); attempt != 4 {
				t.Errorf("reopened after 3 attempts, it ran as attempt %d, want 4", attempt)
			}
			if job := waitFinished(t, db, dialect, postponedArgs{}.Kind()); job.State != rivertype.JobStateCompleted {
				t.Errorf("reopened job %s, want completed", job.State)
			}
		})
	}
}

// waitFinished waits for the one job of kind to finish, and returns it.
func waitFinished(t *testing.T, db *sql.DB, dialect, kind string) *rivertype.JobRow {
	t.Helper()
	var job *rivertype.JobRow
	poll.Until(t, 10*time.Second, "the "+kind+" job finished", func() bool {
		jobs, err := queue.Jobs(context.Background(), db, dialect, kind)
		if err != nil || len(jobs) != 1 {
			t.Fatalf("jobs %v (%v), want one", jobs, err)
		}
		job = jobs[0]
		return queue.Finished(job)
	})
	return job
}
