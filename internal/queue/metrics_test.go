package queue_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/riverqueue/river"

	"github.com/platen-print/platen/internal/queue"
)

// TestQueueMetrics: the collector reports each queue's jobs by state, a
// named queue with no jobs as zeros, and how long the oldest available
// job has waited, on each backend.
func TestQueueMetrics(t *testing.T) {
	for dialect, db := range databases(t) {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			if err := queue.Migrate(ctx, db, dialect); err != nil {
				t.Fatal(err)
			}
			workers := river.NewWorkers()
			river.AddWorker(workers, &noteWorker{})
			q, err := queue.New(db, dialect, workers, queue.Config{}) // inserts only: nothing runs the jobs
			if err != nil {
				t.Fatal(err)
			}
			insert(t, db, q, noteArgs{Text: "waiting"}, &river.InsertOpts{Queue: "renders"})
			insert(t, db, q, noteArgs{Text: "later"}, &river.InsertOpts{Queue: "renders", ScheduledAt: time.Now().Add(time.Hour)})
			// The available job has waited 90 s.
			age := `UPDATE river_job SET scheduled_at = datetime('now', '-90 seconds') WHERE state = 'available'`
			if dialect == "postgres" {
				age = `UPDATE river_job SET scheduled_at = now() - interval '90 seconds' WHERE state = 'available'`
			}
			if _, err := db.ExecContext(ctx, age); err != nil {
				t.Fatal(err)
			}

			reg := prometheus.NewRegistry()
			reg.MustRegister(q.Collector("renders", "idle"))
			want := `
# HELP platen_queue_jobs Jobs by queue and state (available, pending, scheduled, running, retryable, discarded).
# TYPE platen_queue_jobs gauge
platen_queue_jobs{queue="idle",state="available"} 0
platen_queue_jobs{queue="idle",state="discarded"} 0
platen_queue_jobs{queue="idle",state="pending"} 0
platen_queue_jobs{queue="idle",state="retryable"} 0
platen_queue_jobs{queue="idle",state="running"} 0
platen_queue_jobs{queue="idle",state="scheduled"} 0
platen_queue_jobs{queue="renders",state="available"} 1
platen_queue_jobs{queue="renders",state="discarded"} 0
platen_queue_jobs{queue="renders",state="pending"} 0
platen_queue_jobs{queue="renders",state="retryable"} 0
platen_queue_jobs{queue="renders",state="running"} 0
platen_queue_jobs{queue="renders",state="scheduled"} 1
`
			if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "platen_queue_jobs"); err != nil {
				t.Error(err)
			}
			families, err := reg.Gather()
			if err != nil {
				t.Fatal(err)
			}
			waits := map[string]float64{}
			for _, f := range families {
				if f.GetName() != "platen_queue_oldest_available_seconds" {
					continue
				}
				for _, m := range f.GetMetric() {
					waits[m.GetLabel()[0].GetValue()] = m.GetGauge().GetValue()
				}
			}
			if w := waits["renders"]; w < 89 || w > 150 || waits["idle"] != 0 || len(waits) != 2 {
				t.Errorf("oldest available waits %v, want renders about 90 s and idle 0", waits)
			}
		})
	}
}
