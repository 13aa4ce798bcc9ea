package queue

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// listPage is how many jobs one of Jobs' reads returns (River's most).
const listPage = 10_000

// inspector is a River client that works no jobs, for reading and
// rearranging jobs through River's API rather than its tables.
func inspector(pool *sql.DB, dialect string) (*river.Client[*sql.Tx], error) {
	drv, err := driver(pool, dialect)
	if err != nil {
		return nil, err
	}
	client, err := river.NewClient(drv, &river.Config{})
	if err != nil {
		return nil, fmt.Errorf("queue: %w", err)
	}
	return client, nil
}

// Jobs lists the jobs of the given kinds in pool, every job when none is
// given, in the order they were inserted: for tests and checks that need
// to see what the queue holds (states, attempts, errors, priorities).
func Jobs(ctx context.Context, pool *sql.DB, dialect string, kinds ...string) ([]*rivertype.JobRow, error) {
	client, err := inspector(pool, dialect)
	if err != nil {
		return nil, err
	}
	params := river.NewJobListParams().First(listPage)
	if len(kinds) > 0 {
		params = params.Kinds(kinds...)
	}
	var jobs []*rivertype.JobRow
	for {
		res, err := client.JobList(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("queue: list jobs: %w", err)
		}
		jobs = append(jobs, res.Jobs...)
		if len(res.Jobs) < listPage {
			return jobs, nil
		}
		params = params.After(res.LastCursor)
	}
}

// Reopen makes the jobs of kind available again as if each had run
// attempt times and its process had stopped during the last run (what
// Rescue leaves): no outcome recorded for that run, nothing finished. It
// returns how many jobs it changed. Tests use it to have a job run again
// after it finished.
func Reopen(ctx context.Context, pool *sql.DB, dialect, kind string, attempt int) (int, error) {
	client, err := inspector(pool, dialect)
	if err != nil {
		return 0, err
	}
	jobs, err := Jobs(ctx, pool, dialect, kind)
	if err != nil {
		return 0, err
	}
	exec := client.Driver().GetExecutor()
	for _, job := range jobs {
		_, err := exec.JobUpdateFull(ctx, &riverdriver.JobUpdateFullParams{
			ID:                  job.ID,
			StateDoUpdate:       true,
			State:               rivertype.JobStateAvailable,
			AttemptDoUpdate:     true,
			Attempt:             attempt,
			FinalizedAtDoUpdate: true,
			FinalizedAt:         nil,
		})
		if err != nil {
			return 0, fmt.Errorf("queue: reopen job %d: %w", job.ID, err)
		}
	}
	return len(jobs), nil
}
