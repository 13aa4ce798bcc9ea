package batches

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/riverqueue/river"

	"github.com/platen-print/platen/internal/queue"
	"github.com/platen-print/platen/internal/renderjobs"
)

// Kind is the batch job's kind.
const Kind = "render_batch"

// Args is a batch's job: the batch, by uid. The batch row names the job
// that owns it.
type Args struct {
	BatchUID string `json:"batch_uid"`
	TeamID   int    `json:"team_id"`
	// Templates is how many files the job renders, for its time limit.
	Templates int `json:"templates"`
}

// Kind is the job kind.
func (Args) Kind() string { return Kind }

// InsertOpts puts batches among the renders, whose processes they use,
// with room above the worker's own attempts for rescues (as renders).
func (Args) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: renderjobs.RenderQueue, MaxAttempts: renderjobs.RenderAttempts + 5}
}

// Queue queues batch jobs; it is part of the stores' JobQueue.
type Queue struct{ q *queue.Queue }

// NewQueue returns the batch jobs of q.
func NewQueue(q *queue.Queue) *Queue { return &Queue{q: q} }

// EnqueueBatch queues the job of batchUID in tx and returns its id.
func (j *Queue) EnqueueBatch(ctx context.Context, tx *sql.Tx, team int, batchUID string, templates int) (int64, error) {
	ids, err := j.q.InsertEachTx(ctx, tx, []string{batchUID}, func(uid string) river.JobArgs {
		return Args{BatchUID: uid, TeamID: team, Templates: templates}
	})
	if err != nil {
		return 0, fmt.Errorf("queue the batch: %w", err)
	}
	return ids[0], nil
}
