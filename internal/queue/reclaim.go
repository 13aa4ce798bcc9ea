package queue

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// DefaultReclaimAfter is how long a job this process no longer works may
// stay `running` in the database before the process makes it available
// again. River's completer records a job's outcome with up to three tries
// about 1, 2 and 4 s apart, behind the batch before it, and then drops
// it: some 11 s after the job ended when the database refuses writes at
// once. A job made available while the completer still tries could run
// again and then be marked with the old run's outcome, so the wait must
// outlast those tries.
const DefaultReclaimAfter = 15 * time.Second

// reclaimInterval is how often a process looks for its stuck jobs, unless
// its reclaim wait is short enough to need more (see sweepInterval).
const reclaimInterval = 2 * time.Second

// minSweepInterval bounds how often a process looks for its stuck jobs
// however short its reclaim wait.
const minSweepInterval = 100 * time.Millisecond

// sweepInterval is how often a process whose reclaim wait is after looks
// for its stuck jobs: every reclaimInterval, or twice per wait when the
// wait is shorter than two intervals, so that a job is made available
// again at most half a wait late.
func sweepInterval(after time.Duration) time.Duration {
	return max(min(reclaimInterval, after/2), minSweepInterval)
}

// reclaimer makes available again the jobs the database shows `running`
// under this client's ID that the client has not been working for
// `after`: jobs whose completion could not be written while the database
// failed, which River's own rescuer would leave for RescueAfter (minutes).
// A job being worked here is never touched, however long it runs, nor is
// another process's: its ID differs.
type reclaimer struct {
	pool     *sql.DB
	dialect  string
	clientID string
	jobs     *inFlight
	after    time.Duration
	interval time.Duration
	logger   *slog.Logger

	// unseen are running jobs never worked here (River fetched them but
	// the worker had not begun, or it has no worker for their kind): the
	// wait counts from the first sweep that found them.
	unseen  map[int64]sighting
	failing bool // the last sweep failed; logged once per streak
}

type sighting struct {
	attempt int
	at      time.Time
}

// runningJob is a row of river_job in state running.
type runningJob struct {
	id      int64
	attempt int
}

func (r *reclaimer) run(ctx context.Context) {
	ticker := time.NewTicker(r.interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		ids, err := r.sweep(ctx)
		r.report(ctx, ids, err)
	}
}

// sweep makes available the jobs due (see due) and returns their ids.
func (r *reclaimer) sweep(ctx context.Context) ([]int64, error) {
	readAt := time.Now()
	jobs, err := r.running(ctx)
	if err != nil {
		return nil, err
	}
	listed := make(map[int64]bool, len(jobs))
	var released []int64
	var errs []error
	for _, j := range jobs {
		listed[j.id] = true
		if !r.due(j, readAt) {
			continue
		}
		ok, err := r.release(ctx, j)
		switch {
		case err != nil:
			errs = append(errs, err)
		case ok:
			released = append(released, j.id)
			delete(r.unseen, j.id)
		}
	}
	r.jobs.forget(listed, readAt)
	for id := range r.unseen {
		if !listed[id] {
			delete(r.unseen, id)
		}
	}
	return released, errors.Join(errs...)
}

// due says whether j, running in the database, has not been worked here
// for r.after: since its Work here ended, or since a sweep first found it.
func (r *reclaimer) due(j runningJob, now time.Time) bool {
	working, ended := r.jobs.state(j.id)
	switch {
	case working:
		delete(r.unseen, j.id)
		return false
	case !ended.IsZero():
		return now.Sub(ended) >= r.after
	}
	s, ok := r.unseen[j.id]
	if !ok || s.attempt != j.attempt {
		r.unseen[j.id] = sighting{attempt: j.attempt, at: now}
		return false
	}
	return now.Sub(s.at) >= r.after
}

func (r *reclaimer) running(ctx context.Context) ([]runningJob, error) {
	query := `SELECT id, attempt FROM river_job
		WHERE state = 'running' AND json_extract(attempted_by, '$[#-1]') = ?`
	if r.dialect == "postgres" {
		query = `SELECT id, attempt FROM river_job
			WHERE state = 'running' AND attempted_by[array_length(attempted_by, 1)] = $1`
	}
	rows, err := r.pool.QueryContext(ctx, query, r.clientID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var jobs []runningJob
	for rows.Next() {
		var j runningJob
		if err := rows.Scan(&j.id, &j.attempt); err != nil {
			return nil, err
		}
		jobs = append(jobs, j)
	}
	return jobs, rows.Err()
}

// ReclaimedError is the error a reclaimed job's attempt is given.
const ReclaimedError = "the outcome of this attempt could not be recorded; made available again"

// release makes j available, unless it changed since it was read (its
// attempt, state or worker), and reports whether it did.
func (r *reclaimer) release(ctx context.Context, j runningJob) (bool, error) {
	// The release is recorded as the attempt's error: the job ran here
	// to its end, so it was not interrupted, and a render that counts its
	// interrupted runs (renderjobs.Interruptions) must not count this one.
	query := `UPDATE river_job SET state = 'available',
		errors = json_insert(coalesce(errors, '[]'), '$[#]', json_object('at', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
			'attempt', attempt, 'error', '` + ReclaimedError + `', 'trace', ''))
		WHERE id = ? AND attempt = ? AND state = 'running' AND json_extract(attempted_by, '$[#-1]') = ?`
	if r.dialect == "postgres" {
		query = `UPDATE river_job SET state = 'available',
			errors = array_append(errors, jsonb_build_object('at', now(), 'attempt', attempt, 'error', '` + ReclaimedError + `', 'trace', ''))
			WHERE id = $1 AND attempt = $2 AND state = 'running' AND attempted_by[array_length(attempted_by, 1)] = $3`
	}
	res, err := r.pool.ExecContext(ctx, query, j.id, j.attempt, r.clientID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// report logs what a sweep did: each release, and a failure once until
// sweeps succeed again.
func (r *reclaimer) report(ctx context.Context, released []int64, err error) {
	if len(released) > 0 {
		r.logger.Info("made jobs available again: this process had ended them, but their outcome was never recorded",
			"job_ids", released, "after", r.after.String())
	}
	switch {
	case err != nil && ctx.Err() == nil && !r.failing:
		r.failing = true
		r.logger.Warn("cannot look for stuck jobs; retrying", "error", fmt.Sprint(err))
	case err == nil && r.failing:
		r.failing = false
		r.logger.Info("looking for stuck jobs again")
	}
}
