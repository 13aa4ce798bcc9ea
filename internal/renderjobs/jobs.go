// Package renderjobs runs the render jobs that make print files: an order
// item's print follows its job, received (queued) → processing → ready, or
// processingfailed with the reason. The package holds that job (which
// Family B shop orders and batches reuse), the per-team limit on renders
// at once, and the clean-up of files no longer wanted: River jobs, each
// inserted in the transaction of the change that causes it. Its rules say
// which files and jobs a change of prints drops (Cleanup, on the keys
// ItemKeyPrefix and ShopKeyPrefix begin) and what a print made ready or
// failed tells its store (ItemReady, ItemFailed, ShopReady); the stores
// write them. Download links to the files are internal/downloads'.
package renderjobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/platen-print/platen/internal/queue"
)

// Job kinds and the render queue's name.
const (
	RenderKind     = "render_order_item"
	ShopRenderKind = "render_shop_print"
	DeleteKind     = "delete_print_file"
	RenderQueue    = "render"
)

// renderTarget is a render job's args: they name what to render.
type renderTarget interface {
	river.JobArgs
	uid() string
	team() int
}

// RenderArgs is a render job: the item, by uid. The item row names the job
// that owns its print; a job that finds another one there was superseded.
type RenderArgs struct {
	ItemUID string `json:"item_uid"`
	// TeamID places the job among its team's renders (renderPriority).
	TeamID int `json:"team_id,omitempty"`
}

// Kind is the job kind.
func (RenderArgs) Kind() string { return RenderKind }

func (a RenderArgs) uid() string { return a.ItemUID }
func (a RenderArgs) team() int   { return a.TeamID }

// InsertOpts puts renders on their own queue. River's attempt limit leaves
// room above the worker's own (RenderAttempts) for rescues of jobs a crash
// interrupted, which the worker then ends as failed instead of River
// discarding them with the item left in processing.
func (RenderArgs) InsertOpts() river.InsertOpts {
	return renderInsertOpts
}

var renderInsertOpts = river.InsertOpts{Queue: RenderQueue, MaxAttempts: RenderAttempts + 5}

// ShopRenderArgs is the render job of a Family B print, by uid.
type ShopRenderArgs struct {
	PrintUID string `json:"print_uid"`
	TeamID   int    `json:"team_id,omitempty"`
}

// Kind is the job kind.
func (ShopRenderArgs) Kind() string { return ShopRenderKind }

func (a ShopRenderArgs) uid() string { return a.PrintUID }
func (a ShopRenderArgs) team() int   { return a.TeamID }

// InsertOpts: as RenderArgs.
func (ShopRenderArgs) InsertOpts() river.InsertOpts { return renderInsertOpts }

// DeleteArgs removes a stored print file that nothing refers to any more,
// or (Prefix) every file a render job stored under its own prefix.
type DeleteArgs struct {
	Key    string `json:"key,omitempty"`
	Prefix string `json:"prefix,omitempty"`
}

// Kind is the job kind.
func (DeleteArgs) Kind() string { return DeleteKind }

// Jobs inserts and cancels print-file jobs; it is the stores' JobQueue.
type Jobs struct{ q *queue.Queue }

// NewJobs returns the print-file jobs of q.
func NewJobs(q *queue.Queue) *Jobs { return &Jobs{q: q} }

// EnqueueRenders queues a render per item uid of team in tx and returns
// the job ids.
func (j *Jobs) EnqueueRenders(ctx context.Context, tx *sql.Tx, team int, itemUIDs []string) ([]int64, error) {
	return j.insert(ctx, tx, team, itemUIDs, func(uid string) river.JobArgs { return RenderArgs{ItemUID: uid, TeamID: team} })
}

// EnqueueShopRenders queues a render per shop print uid of team in tx and
// returns the job ids.
func (j *Jobs) EnqueueShopRenders(ctx context.Context, tx *sql.Tx, team int, printUIDs []string) ([]int64, error) {
	return j.insert(ctx, tx, team, printUIDs, func(uid string) river.JobArgs { return ShopRenderArgs{PrintUID: uid, TeamID: team} })
}

// insert queues the renders behind the team's unfinished ones: each gets
// the priority of its place in the team's queue, so that a team with a
// few renders passes a team with hundreds, but never one before any of
// the team's own renders already waiting (see renderPriority).
func (j *Jobs) insert(ctx context.Context, tx *sql.Tx, team int, uids []string, args func(string) river.JobArgs) ([]int64, error) {
	ahead, err := j.q.TeamBacklog(ctx, tx, RenderQueue, team, lastPriorityFrom)
	if err != nil {
		return nil, err
	}
	ids, err := j.q.InsertEachTxWith(ctx, tx, uids, args, func(i int) *river.InsertOpts {
		return &river.InsertOpts{Priority: renderPriority(ahead, i)}
	})
	if err != nil {
		return nil, fmt.Errorf("queue renders: %w", err)
	}
	return ids, nil
}

// renderPriority is the River priority (1 first, 4 last) of the i-th of
// a team's new renders, behind its backlog: a team's first 4 renders come
// first, its next 12 after every team's first 4, and so on, so that one
// team's 500-line order keeps another's single order waiting for no more
// than a few renders, while an idle queue still runs everything at once.
//
// River runs the lowest priority number first, so a render never gets a
// lower number than one of its team's still waiting: under a team's
// steady load, its backlog shrinking back under 16 would otherwise give
// each new render a place before the renders queued at 3 when the
// backlog was longer, and those would wait for as long as the load lasts.
func renderPriority(ahead queue.Backlog, i int) int {
	position := ahead.Jobs + i
	p := 4
	switch {
	case position < 4:
		p = 1
	case position < 16:
		p = 2
	case position < lastPriorityFrom:
		p = 3
	}
	return max(p, ahead.LastPriority)
}

// lastPriorityFrom is the position in its team's queue from which a render
// has the last priority.
const lastPriorityFrom = 64

// WakeSoon makes the workers of queue (renders, webhook deliveries) look
// for jobs now that the transaction that queued them has committed, rather
// than at their next poll; see queue.Queue.WakeSoon.
func (j *Jobs) WakeSoon(queue string) { j.q.WakeSoon(queue) }

// CancelJobs cancels jobs in tx that have not finished; a job already gone
// (cleaned up after finishing) is no error.
func (j *Jobs) CancelJobs(ctx context.Context, tx *sql.Tx, jobIDs []int64) error {
	for _, id := range jobIDs {
		if _, err := j.q.Client().JobCancelTx(ctx, tx, id); err != nil && !errors.Is(err, rivertype.ErrNotFound) {
			return fmt.Errorf("cancel job %d: %w", id, err)
		}
	}
	return nil
}

// EnqueueFileDeletes queues the removal of stored files in tx: keys, and
// every file under each of prefixes.
func (j *Jobs) EnqueueFileDeletes(ctx context.Context, tx *sql.Tx, keys, prefixes []string) error {
	args := make([]river.JobArgs, 0, len(keys)+len(prefixes))
	for _, key := range keys {
		args = append(args, DeleteArgs{Key: key})
	}
	for _, prefix := range prefixes {
		args = append(args, DeleteArgs{Prefix: prefix})
	}
	if _, err := j.q.InsertAllTx(ctx, tx, args); err != nil {
		return fmt.Errorf("queue file deletes: %w", err)
	}
	return nil
}
