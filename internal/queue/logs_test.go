package queue_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/platen-print/platen/internal/queue"
)

// TestPollOnlyNoticeIsQuiet: River's notice that it polls (every start,
// on every database Platen uses) is DEBUG, not INFO; River's other lines
// pass as they are.
func TestPollOnlyNoticeIsQuiet(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
		var logs bytes.Buffer
		db := openSQLite(t)
		workers := river.NewWorkers()
		river.AddWorker(workers, &noteWorker{})
		cfg := queue.Config{Workers: 1, PollInterval: 50 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: level}))}
		if err := queue.Migrate(context.Background(), db, "sqlite3"); err != nil {
			t.Fatal(err)
		}
		q, err := queue.New(db, "sqlite3", workers, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := q.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		// Stop returns as soon as the client has stopped; the bound is for
		// a machine so loaded that it takes seconds (it took 5 here once).
		stop, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_ = q.Stop(stop)
		cancel()
		out := logs.String()
		notice := strings.Contains(out, "entering poll only mode")
		switch {
		case level == slog.LevelInfo && notice:
			t.Errorf("at INFO the poll-only notice shows:\n%s", out)
		case level == slog.LevelDebug && !strings.Contains(out, `level=DEBUG msg="Driver does not support listener; entering poll only mode"`):
			t.Errorf("at DEBUG the poll-only notice is missing:\n%s", out)
		case !strings.Contains(out, "River client stopped"):
			t.Errorf("River's other lines are gone:\n%s", out)
		}
	}
}
