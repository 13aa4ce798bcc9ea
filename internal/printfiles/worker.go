package printfiles

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/catalog"
	"github.com/platen-print/platen/internal/design"
	"github.com/platen-print/platen/internal/files"
	"github.com/platen-print/platen/internal/rendersvc"
)

// renderAttempts is how often a render that fails for a reason a retry can
// get past (an image server timing out) is tried before the print fails;
// retryDelays space them.
const renderAttempts = 5

var retryDelays = []time.Duration{2 * time.Second, 10 * time.Second, 30 * time.Second, 2 * time.Minute}

// RenderTimeout bounds one render: fetching every image (15 s each at
// most) and drawing. The queue's rescue window must exceed it.
const RenderTimeout = 2 * time.Minute

// Task is what a render needs to know of its item.
type Task struct {
	ItemUID, OrderUID                      string
	TeamID                                 int
	EcommerceOrderID, EcommerceOrderItemID string
	EcommerceVariantID                     string
	TemplateConfig                         string
	// JobID is the job that owns the print; nil when none does.
	JobID  *int64
	Status string
}

// Store is the persistence of print files. Start, Finish and Fail change
// the item only while jobID still owns its print, and report whether it
// did; Finish queues the removal of the file the item had before.
type Store interface {
	Task(ctx context.Context, itemUID string) (*Task, error)
	Start(ctx context.Context, itemUID string, jobID int64) (bool, error)
	Finish(ctx context.Context, itemUID string, jobID int64, key string) (bool, error)
	Fail(ctx context.Context, itemUID string, jobID int64, reason string) (bool, error)
	// Download is the stored file of a ready item, for its download link.
	Download(ctx context.Context, itemUID string) (*Download, error)
}

// Settings resolves an item's print settings (catalog.Resolver).
type Settings interface {
	Resolve(ctx context.Context, teamID int, ecommerceVariantID string, doc []byte) (catalog.PrintSettings, error)
}

// Renderer renders one item: the deps of RenderWorker.
type Renderer struct {
	Store    Store
	Settings Settings
	Render   renderv1.RenderServiceClient
	Files    *files.Store
	Logger   *slog.Logger
}

// RenderWorker works render jobs.
type RenderWorker struct {
	river.WorkerDefaults[RenderArgs]
	Renderer
}

// Timeout bounds a render.
func (w *RenderWorker) Timeout(*river.Job[RenderArgs]) time.Duration { return RenderTimeout }

// NextRetry spaces the attempts of a render that may succeed later.
func (w *RenderWorker) NextRetry(job *river.Job[RenderArgs]) time.Time {
	return time.Now().Add(retryDelays[min(job.Attempt, len(retryDelays))-1])
}

// Work renders the item's design, stores the file and moves the status.
// A document the renderer cannot honour fails at once; other failures are
// retried renderAttempts times, then fail. Either way the reason is kept.
func (w *RenderWorker) Work(ctx context.Context, job *river.Job[RenderArgs]) error {
	task, err := w.Store.Task(ctx, job.Args.ItemUID)
	if errors.Is(err, apierr.ErrNotFound) {
		return nil // the order or the item went: nothing to render
	}
	if err != nil {
		return err
	}
	if task.JobID == nil || *task.JobID != job.ID {
		return nil // superseded by a newer render of the item
	}
	if job.Attempt > renderAttempts {
		// Only rescues of interrupted runs get here: a design that brings
		// the renderer down every time must not do so for ever.
		return w.fail(ctx, task, job.ID, fmt.Sprintf("rendering was interrupted %d times; giving up", job.Attempt-1))
	}
	if owned, err := w.Store.Start(ctx, task.ItemUID, job.ID); err != nil || !owned {
		return err
	}
	key, err := w.render(ctx, task, job.ID)
	if err == nil {
		return w.finish(ctx, task, job.ID, key)
	}
	var permanent *permanentError
	switch {
	case errors.As(err, &permanent), rendersvc.Permanent(err):
		return w.fail(ctx, task, job.ID, reason(err))
	case job.Attempt >= renderAttempts:
		return w.fail(ctx, task, job.ID, fmt.Sprintf("%s (after %d attempts)", reason(err), job.Attempt))
	}
	w.Logger.Warn("render failed; retrying", "item_uid", task.ItemUID, "job_id", job.ID, "attempt", job.Attempt, "error", err)
	return err
}

// permanentError is a failure of the item's own data, found before the
// renderer is asked.
type permanentError struct{ reason string }

func (e *permanentError) Error() string { return e.reason }

func reason(err error) string {
	var permanent *permanentError
	if errors.As(err, &permanent) {
		return permanent.reason
	}
	return rendersvc.Reason(err)
}

// render renders the item's PDF and stores it under a key of its own (so
// that a download of the previous file is never served a half-written one).
func (w *RenderWorker) render(ctx context.Context, task *Task, jobID int64) (string, error) {
	doc, err := design.Decode(task.TemplateConfig)
	if err != nil {
		return "", &permanentError{reason: "template_config: " + err.Error()}
	}
	settings, err := w.Settings.Resolve(ctx, task.TeamID, task.EcommerceVariantID, doc)
	if err != nil {
		return "", fmt.Errorf("print settings: %w", err)
	}
	req := &renderv1.RenderRequest{
		Document: doc,
		Settings: &renderv1.PrintSettings{Dpi: uint32(settings.DPI)},
		Formats:  []renderv1.Format{renderv1.Format_FORMAT_PDF},
	}
	if settings.Variant != nil {
		req.Settings.VariantId = int32(settings.Variant.VariantID)
	}
	resp, err := w.Render.Render(ctx, req)
	if err != nil {
		return "", err
	}
	if len(resp.Files) != 1 {
		return "", fmt.Errorf("the renderer answered %d files for one PDF", len(resp.Files))
	}
	key := fileKey(task, jobID)
	if err := w.Files.Put(ctx, key, bytes.NewReader(resp.Files[0].Data), resp.Files[0].ContentType); err != nil {
		return "", err
	}
	return key, nil
}

// fileKey is where an item's file of one render is stored.
func fileKey(task *Task, jobID int64) string {
	return fmt.Sprintf("orders/%s/%s-%d.pdf", task.OrderUID, task.ItemUID, jobID)
}

func (w *RenderWorker) finish(ctx context.Context, task *Task, jobID int64, key string) error {
	owned, err := w.Store.Finish(ctx, task.ItemUID, jobID, key)
	if err != nil || owned {
		return err
	}
	// Superseded or deleted while rendering: the file is nobody's.
	return w.Files.Delete(ctx, key)
}

func (w *RenderWorker) fail(ctx context.Context, task *Task, jobID int64, reason string) error {
	w.Logger.Info("render failed", "item_uid", task.ItemUID, "job_id", jobID, "reason", reason)
	_, err := w.Store.Fail(ctx, task.ItemUID, jobID, reason)
	return err
}

// DeleteWorker removes print files nothing refers to.
type DeleteWorker struct {
	river.WorkerDefaults[DeleteArgs]
	Files *files.Store
}

// Work deletes the file; a missing one is already done.
func (w *DeleteWorker) Work(ctx context.Context, job *river.Job[DeleteArgs]) error {
	return w.Files.Delete(ctx, job.Args.Key)
}

// Register adds the print-file workers to workers.
func Register(workers *river.Workers, r Renderer) {
	river.AddWorker(workers, &RenderWorker{Renderer: r})
	river.AddWorker(workers, &DeleteWorker{Files: r.Files})
}
