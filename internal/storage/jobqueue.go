package storage

import (
	"context"
	"database/sql"
)

// JobQueue is the durable job queue as the stores see it: every call takes
// the caller's transaction, so that a job exists exactly when the change
// that causes it commits.
type JobQueue interface {
	// EnqueueRenders queues one render per item uid and returns the job
	// ids, in order; team's renders queue behind its own earlier ones.
	EnqueueRenders(ctx context.Context, tx *sql.Tx, team int, itemUIDs []string) ([]int64, error)
	// EnqueueShopRenders does the same for Family B prints.
	EnqueueShopRenders(ctx context.Context, tx *sql.Tx, team int, printUIDs []string) ([]int64, error)
	// EnqueueDeliveries queues a webhook delivery per delivery uid and
	// returns the job ids, in order.
	EnqueueDeliveries(ctx context.Context, tx *sql.Tx, deliveryUIDs []string) ([]int64, error)
	// CancelJobs cancels jobs that have not run yet; running or finished
	// ones are left as they are, to run to their end (a superseded render
	// writes nothing, and removes the files it stored).
	CancelJobs(ctx context.Context, tx *sql.Tx, jobIDs []int64) error
	// EnqueueFileDeletes queues the removal of stored files no longer
	// referenced: keys, and every file under each of prefixes.
	EnqueueFileDeletes(ctx context.Context, tx *sql.Tx, keys, prefixes []string) error
	// EnqueueBatch queues the job that renders a batch of team with
	// templates files, and returns its id.
	EnqueueBatch(ctx context.Context, tx *sql.Tx, team int, batchUID string, templates int) (int64, error)
	// WakeSoon makes the workers of queue look for jobs now (this
	// process's on SQLite, every process's on PostgreSQL), in the
	// background, rather than at their next poll; it never blocks. Call
	// it once the transaction that queued the jobs has committed.
	WakeSoon(queue string)
}
