package storage

import (
	"context"
	"database/sql"

	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/prints"
	"github.com/platen-print/platen/internal/renderjobs"
)

// JobQueue is the durable job queue as the stores see it: every call takes
// the caller's transaction, so that a job exists exactly when the change
// that causes it commits.
type JobQueue interface {
	// EnqueueRenders queues one render per item uid and returns the job
	// ids, in order.
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

// SetQueue makes writes that need a render or a clean-up queue it; without
// a queue (admin commands) print files are requested but not queued.
func (db *DB) SetQueue(q JobQueue) { db.queue = q }

// printWork gathers what a write does to render jobs and stored files, so
// that it happens in the write's own transaction at its end.
type printWork struct {
	team   int
	render []*orders.Item // items of team to (re)render; their JobID is set
	cancel []int64
	delete []string
	// deleteUnder are key prefixes whose every file goes: a shop print's
	// job's, whose surfaces are not counted anywhere.
	deleteUnder []string
}

// drop records that an item's print, as it was, is no longer wanted: its
// job (if pending) is cancelled and its file removed.
func (w *printWork) drop(p orders.PrintFile) {
	if p.JobID != nil {
		w.cancel = append(w.cancel, *p.JobID)
	}
	if p.FileKey != nil {
		w.delete = append(w.delete, *p.FileKey)
	}
}

// dropItem is drop for a Family A item of the order orderUID: its job's
// own file goes too. A run of the job that stored it and then stopped (a
// kill, or a database that refused its outcome) left it recorded nowhere;
// the job's next run, finding the item gone or superseded, stores nothing
// and removes nothing, so the file would stay in the bucket forever.
func (w *printWork) dropItem(orderUID, itemUID string, p orders.PrintFile) {
	w.drop(p)
	w.dropJobFile(orderUID, itemUID, p)
}

// dropJobFile queues the removal of the file p's job stores, unless it is
// p's own file (which drop removes).
func (w *printWork) dropJobFile(orderUID, itemUID string, p orders.PrintFile) {
	if p.JobID == nil {
		return
	}
	if key := renderjobs.FileKey(itemKeyPrefix(orderUID, itemUID), *p.JobID); p.FileKey == nil || *p.FileKey != key {
		w.delete = append(w.delete, key)
	}
}

// dropShopJobFiles queues the removal of whatever the render job jobID of
// the shop print uid (of the shop order ref) stored: a run that stored its
// files and stopped before recording them left them recorded nowhere, as
// dropItem says of an item's.
func (w *printWork) dropShopJobFiles(ref, uid string, jobID *int64) {
	if jobID != nil {
		w.deleteUnder = append(w.deleteUnder, renderjobs.JobFilesPrefix(shopKeyPrefix(ref, uid), *jobID))
	}
}

// shopKeyPrefix is the key prefix of a shop print's files.
func shopKeyPrefix(ref, uid string) string { return "shop/" + ref + "/" + uid }

// itemKeyPrefix is the key prefix of an order item's files.
func itemKeyPrefix(orderUID, itemUID string) string { return "orders/" + orderUID + "/" + itemUID }

// queueRender marks it, an item of o, as queued for rendering.
func (w *printWork) queueRender(o *orders.Order, it *orders.Item) {
	w.team = o.TeamID
	it.Print = orders.PrintFile{Status: orders.PrintReceived}
	w.render = append(w.render, it)
}

// enqueue runs the recorded work in tx; items to render get their job id
// (write them after this).
func (db *DB) enqueue(ctx context.Context, tx *Tx, w *printWork) error {
	if db.queue == nil {
		return nil
	}
	if len(w.cancel) > 0 {
		if err := db.queue.CancelJobs(ctx, tx.SQL, w.cancel); err != nil {
			return err
		}
	}
	if len(w.delete) > 0 || len(w.deleteUnder) > 0 {
		if err := db.queue.EnqueueFileDeletes(ctx, tx.SQL, w.delete, w.deleteUnder); err != nil {
			return err
		}
	}
	if len(w.render) == 0 {
		return nil
	}
	uids := make([]string, len(w.render))
	for i, it := range w.render {
		uids[i] = it.UID
	}
	ids, err := db.queue.EnqueueRenders(ctx, tx.SQL, w.team, uids)
	if err != nil {
		return err
	}
	tx.wakeAfterCommit(renderjobs.RenderQueue)
	if err := record(ctx, tx, prints.EventQueued, nil, nil, uids...); err != nil {
		return err
	}
	for i, it := range w.render {
		it.Print.JobID = &ids[i]
	}
	return nil
}
