package queue

import (
	"context"
	"errors"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// cancelShield is River's worker middleware that lets a job cancelled while
// it runs (JobCancelTx: a render superseded by an edit) run to its end.
// Platen's jobs check when they finish whether their work is still wanted,
// and a superseded render removes the files it stored then; interrupted
// between storing them and that check, it would leave them behind. On
// PostgreSQL River hears the cancel (it listens) and would cancel the
// job's context; on SQLite it never could. Other cancellations (the
// job's timeout, a shutdown) still reach the job.
type cancelShield struct{ river.MiddlewareDefaults }

var _ rivertype.WorkerMiddleware = (*cancelShield)(nil)

func (*cancelShield) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	shielded, stop := withoutRemoteCancel(ctx)
	defer stop()
	return doInner(shielded)
}

// withoutRemoteCancel is ctx with its values and deadline, ended when ctx
// ends for any reason but River's cancel of the job.
func withoutRemoteCancel(ctx context.Context) (context.Context, func()) {
	shielded, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	stopDeadline := func() {}
	if deadline, ok := ctx.Deadline(); ok {
		shielded, stopDeadline = context.WithDeadline(shielded, deadline)
	}
	stopWatch := context.AfterFunc(ctx, func() {
		if cause := context.Cause(ctx); !errors.Is(cause, rivertype.ErrJobCancelledRemotely) {
			cancel(cause)
		}
	})
	return shielded, func() {
		stopWatch()
		stopDeadline()
		cancel(context.Canceled)
	}
}
