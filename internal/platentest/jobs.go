package platentest

import (
	"context"
	"testing"

	"github.com/riverqueue/river/rivertype"

	"github.com/platen-print/platen/internal/queue"
)

// Jobs lists the server's jobs of the given kinds (every job when none is
// given) in the order they were queued, as the queue reports them.
func (s *Server) Jobs(t testing.TB, kinds ...string) []*rivertype.JobRow {
	t.Helper()
	jobs, err := queue.Jobs(context.Background(), s.DB().JobPool(), s.DB().Dialect(), kinds...)
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

// UnfinishedJobs counts the server's jobs of the given kinds (every job
// when none is given) that may still run: not completed, cancelled or
// discarded.
func (s *Server) UnfinishedJobs(t testing.TB, kinds ...string) int {
	t.Helper()
	n := 0
	for _, job := range s.Jobs(t, kinds...) {
		if !queue.Finished(job) {
			n++
		}
	}
	return n
}

// ReopenJobs makes the server's jobs of kind available again as though
// each had run attempt times, the last run interrupted (queue.Reopen), so
// that they run again.
func (s *Server) ReopenJobs(t testing.TB, kind string, attempt int) {
	t.Helper()
	n, err := queue.Reopen(context.Background(), s.DB().JobPool(), s.DB().Dialect(), kind, attempt)
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatalf("no %s job to reopen", kind)
	}
}
