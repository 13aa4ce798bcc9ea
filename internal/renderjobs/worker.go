package renderjobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/catalog"
	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/files"
	"github.com/platen-print/platen/internal/fonts"
	"github.com/platen-print/platen/internal/press"
	"github.com/platen-print/platen/internal/queue"
	"github.com/platen-print/platen/internal/renderproc"
)

// RenderAttempts is how often a render that fails for a reason a retry can
// get past (an image server timing out) is tried before the print fails;
// retryDelays space them.
const RenderAttempts = 5

var retryDelays = []time.Duration{2 * time.Second, 10 * time.Second, 30 * time.Second, 2 * time.Minute}

// jobOverhead is a render job's time beyond its render: reading the
// print, storing its files, recording the outcome. The render's own limit
// is the renderer's (--render-timeout), which the job's must exceed so
// that a render over it fails as such instead of as a job cut off.
const jobOverhead = time.Minute

// JobTimeout bounds a render job whose render may take renderLimit: its
// wait for a render process (at most one render, as the queue runs two
// jobs a process), its own render and the rest. The queue's rescue window
// must exceed it.
func JobTimeout(renderLimit time.Duration) time.Duration { return 2*renderLimit + jobOverhead }

// Task is what a render needs to know of what it renders: a Family A
// order item or a Family B print, by uid.
type Task struct {
	UID string
	// KeyPrefix names the stored files: orders/{order_uid}/{item_uid} or
	// shop/{reference_number}/{print_uid}.
	KeyPrefix string
	// PerSurface asks for a one-page PDF per design surface (Family B)
	// instead of one PDF with a page per surface (Family A).
	PerSurface         bool
	TeamID             int
	EcommerceVariantID string
	TemplateConfig     string
	// JobID is the job that owns the print; nil when none does.
	JobID *int64
	// Finished says the owning job made the print ready already: only its
	// own end went unrecorded (the process stopped between the two).
	Finished bool
}

// StoredFile is a rendered file as stored: its key, and its size and
// SHA-256 as files.Store.Put hashed them while writing it.
type StoredFile struct {
	Key string
	files.Digest
}

// Store is the persistence of one family's prints. Start, Finish and Fail
// change the print only while jobID still owns it, and report whether they
// did; Finish records the files (in surface order) and queues the removal
// of those the print had before.
type Store interface {
	Task(ctx context.Context, uid string) (*Task, error)
	Start(ctx context.Context, uid string, jobID int64) (bool, error)
	Finish(ctx context.Context, uid string, jobID int64, stored []StoredFile, warnings []files.Warning) (bool, error)
	Fail(ctx context.Context, uid string, jobID int64, reason string) (bool, error)
}

// Settings resolves an item's print settings (catalog.Resolver).
type Settings interface {
	Resolve(ctx context.Context, teamID int, ecommerceVariantID string, doc []byte) (catalog.PrintSettings, error)
}

// Renderer renders prints: the deps of RenderWorker. Store is the family's.
type Renderer struct {
	Store    Store
	Settings Settings
	Render   renderv1.RenderServiceClient
	Files    *files.Store
	Logger   *slog.Logger
	// RenderLimit is the longest a render may take (--render-timeout).
	RenderLimit time.Duration
	// Teams caps each team's render jobs at once in this process, and
	// Renders, inside them, its calls to the render processes: a team's
	// jobs read and write the database while others of the team render,
	// yet hold no more render processes than Renders allows. Nil for no
	// cap.
	Teams, Renders *TeamLimit
	// Fonts finds the team's fonts a design names; nil for none.
	Fonts *fonts.Resolver
	// Press resolves the variant's press settings over the team's
	// default; nil for the built-in ones.
	Press *press.Resolver
}

// RenderWorker works one family's render jobs.
type RenderWorker[A renderTarget] struct {
	river.WorkerDefaults[A]
	Renderer
}

// Timeout bounds a render.
func (w *RenderWorker[A]) Timeout(*river.Job[A]) time.Duration { return JobTimeout(w.RenderLimit) }

// NextRetry spaces the attempts of a render that may succeed later.
func (w *RenderWorker[A]) NextRetry(job *river.Job[A]) time.Time { return NextRetry(job.Attempt) }

// NextRetry is when a render job that failed on attempt may try again.
func NextRetry(attempt int) time.Time {
	return time.Now().Add(retryDelays[min(attempt, len(retryDelays))-1])
}

// Work renders the print's design, stores the files and moves the status.
// A document the renderer cannot honour fails at once; other failures are
// retried RenderAttempts times, then fail. Either way the reason is kept.
func (w *RenderWorker[A]) Work(ctx context.Context, job *river.Job[A]) error {
	// The team's place is taken before the print is read, so that renders
	// waiting in the team's line hold no design in memory. A job queued
	// before its args named the team waits among team 0's.
	team := job.Args.team()
	if !w.Teams.Acquire(ctx, team) {
		// A postponement counts no attempt: the render has not been tried.
		return queue.Postpone(PostponeFor())
	}
	defer w.Teams.Release(team)
	task, err := w.Store.Task(ctx, job.Args.uid())
	if errors.Is(err, apierr.ErrNotFound) {
		return nil // the order, item or print went: nothing to render
	}
	if err != nil {
		return err
	}
	if task.JobID == nil || *task.JobID != job.ID {
		return nil // superseded by a newer render
	}
	if task.Finished {
		// Run again after a crash that came between the print's ready and
		// the job's end: rendering again could only fail a ready print or
		// orphan its files.
		return nil
	}
	if n := Interruptions(job.JobRow); n >= MaxInterruptions {
		// Renders run in processes of their own, so a design cannot bring
		// this one down; if the process working it died twice anyway (a
		// kill, the machine's memory), the third run must not be tried.
		return w.fail(ctx, task, job.ID, fmt.Sprintf("rendering was interrupted %d times (the process working it stopped); giving up", n))
	}
	if owned, err := w.Store.Start(ctx, task.UID, job.ID); err != nil || !owned {
		return err
	}
	stored, warnings, err := w.render(ctx, task, job.ID)
	if err == nil {
		return w.finish(ctx, task, job.ID, stored, warnings)
	}
	if errors.Is(err, errGone) {
		return nil
	}
	var permanent *permanentError
	switch {
	case errors.As(err, &permanent), renderproc.Permanent(err):
		return w.fail(ctx, task, job.ID, reason(err))
	case job.Attempt >= RenderAttempts:
		return w.fail(ctx, task, job.ID, fmt.Sprintf("%s (after %d attempts)", reason(err), job.Attempt))
	}
	w.Logger.Warn("render failed; retrying", "uid", task.UID, "job_id", job.ID, "attempt", job.Attempt, "error", err)
	return err
}

// MaxInterruptions is how many runs of a render may end with the process
// working it, before the render fails.
const MaxInterruptions = 2

// Interruptions counts the earlier runs of job that ended without an
// answer: those River's rescuer recorded (queue.RescuedByRiver), and those
// a restart made available again (queue.Rescue), which left no error at
// all. A run that ended but whose outcome the database refused, which its
// process made available again, carries queue.ReclaimedError and is not
// counted.
func Interruptions(job *rivertype.JobRow) int {
	rescued := 0
	for _, e := range job.Errors {
		if queue.RescuedByRiver(e) {
			rescued++
		}
	}
	return job.Attempt - 1 - len(job.Errors) + rescued
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
	return renderproc.Reason(err)
}

// render renders the print's PDFs and stores them under keys of their own
// (so that a download of the previous files is never served a half-written
// one), in surface order.
func (w *RenderWorker[A]) render(ctx context.Context, task *Task, jobID int64) ([]StoredFile, []files.Warning, error) {
	doc, err := designdoc.Decode(task.TemplateConfig)
	if err != nil {
		return nil, nil, &permanentError{reason: "template_config: " + err.Error()}
	}
	settings, err := w.Settings.Resolve(ctx, task.TeamID, task.EcommerceVariantID, doc)
	if err != nil {
		return nil, nil, fmt.Errorf("print settings: %w", err)
	}
	req := &renderv1.RenderRequest{
		Document: doc,
		Settings: &renderv1.PrintSettings{Dpi: uint32(settings.DPI)},
		Formats:  []renderv1.Format{renderv1.Format_FORMAT_PDF},
		// The print's warnings come with its files.
		Preflight: true,
	}
	var level press.Settings // a shop print, or an item no variant lists: the team's default
	if settings.Variant != nil {
		req.Settings.VariantId = int32(settings.Variant.VariantID)
		level = settings.Variant.Press
	}
	pressSettings, err := w.Press.Resolve(ctx, task.TeamID, level)
	if err != nil {
		return nil, nil, err
	}
	pressSettings.Apply(req.Settings)
	req.PdfPerSurface = task.PerSurface
	if req.Fonts, err = w.Fonts.Fonts(ctx, task.TeamID, doc); err != nil {
		return nil, nil, fmt.Errorf("fonts: %w", err)
	}
	resp, err := w.renderHeld(ctx, task, jobID, req)
	if err != nil {
		return nil, nil, err
	}
	if len(resp.Files) == 0 || (!task.PerSurface && len(resp.Files) != 1) {
		return nil, nil, fmt.Errorf("the renderer answered %d files", len(resp.Files))
	}
	stored, err := w.store(ctx, task, jobID, resp.Files)
	return stored, warningsOf(resp), err
}

// errGone says a render waited for its team's render place while its print
// went, or passed to a newer render: there is nothing to render.
var errGone = errors.New("the print went while its render waited")

// renderHeld calls the render service once one of the team's render
// places is free; a render that had to wait first checks that its print
// is still its own.
func (w *RenderWorker[A]) renderHeld(ctx context.Context, task *Task, jobID int64, req *renderv1.RenderRequest) (*renderv1.RenderResponse, error) {
	return RenderHeld(ctx, w.Renders, task.TeamID, w.Render, req, func() error {
		now, err := w.Store.Task(ctx, task.UID)
		switch {
		case errors.Is(err, apierr.ErrNotFound):
			return errGone
		case err != nil:
			return err
		case now.JobID == nil || *now.JobID != jobID:
			return errGone
		}
		return nil
	})
}

// RenderHeld calls client once one of team's places in limit is free, and
// gives the place back when the call returns. When the call had to wait,
// recheck (if not nil) runs first: what the render is for may have changed
// meanwhile, and its error is returned instead of rendering.
func RenderHeld(ctx context.Context, limit *TeamLimit, team int, client renderv1.RenderServiceClient,
	req *renderv1.RenderRequest, recheck func() error) (*renderv1.RenderResponse, error) {
	got, waited := limit.Hold(ctx, team)
	if !got {
		return nil, ctx.Err()
	}
	defer limit.Release(team)
	if waited && recheck != nil {
		if err := recheck(); err != nil {
			return nil, err
		}
	}
	return client.Render(ctx, req)
}

func warningsOf(resp *renderv1.RenderResponse) []files.Warning {
	warnings := make([]files.Warning, len(resp.Warnings))
	for i, w := range resp.Warnings {
		warnings[i] = files.Warning{Code: w.Code, Layer: w.Layer, Message: w.Message}
	}
	return warnings
}

// store puts the rendered files under keys of this job: {prefix}-{job}.pdf,
// or {prefix}-{job}-{surface from 1}.pdf for a PDF per surface, each with
// the size and SHA-256 hashed as it was written.
func (w *RenderWorker[A]) store(ctx context.Context, task *Task, jobID int64, files []*renderv1.RenderedFile) ([]StoredFile, error) {
	stored := make([]StoredFile, len(files))
	for i, f := range files {
		stored[i].Key = FileKey(task.KeyPrefix, jobID)
		if task.PerSurface {
			stored[i].Key = SurfaceFileKey(task.KeyPrefix, jobID, i+1)
		}
		d, err := w.Files.Put(ctx, stored[i].Key, bytes.NewReader(f.Data), f.ContentType)
		if err != nil {
			return nil, err
		}
		stored[i].Digest = d
	}
	return stored, nil
}

// FileKey is where the render job jobID stores a Family A item's file,
// whose key prefix is orders/{order_uid}/{item_uid}: known before the job
// has run, so that whoever drops the job can drop what it may have stored.
func FileKey(prefix string, jobID int64) string { return fmt.Sprintf("%s-%d.pdf", prefix, jobID) }

// SurfaceFileKey is where the render job jobID stores a print's file of
// one surface (from 1), when it makes a PDF per surface (a shop print).
func SurfaceFileKey(prefix string, jobID int64, surface int) string {
	return JobFilesPrefix(prefix, jobID) + strconv.Itoa(surface) + ".pdf"
}

// JobFilesPrefix begins the key of every file SurfaceFileKey names for
// jobID, and no other job's: what a delete of whatever the job stored
// removes, when how many surfaces it stored is recorded nowhere.
func JobFilesPrefix(prefix string, jobID int64) string { return fmt.Sprintf("%s-%d-", prefix, jobID) }

func (w *RenderWorker[A]) finish(ctx context.Context, task *Task, jobID int64, stored []StoredFile, warnings []files.Warning) error {
	owned, err := w.Store.Finish(ctx, task.UID, jobID, stored, warnings)
	if err != nil || owned {
		return err
	}
	// Superseded or deleted while rendering: the files are nobody's.
	for _, f := range stored {
		if err := w.Files.Delete(ctx, f.Key); err != nil {
			return err
		}
	}
	return nil
}

func (w *RenderWorker[A]) fail(ctx context.Context, task *Task, jobID int64, reason string) error {
	w.Logger.Warn("render failed", "uid", task.UID, "job_id", jobID, "reason", reason)
	_, err := w.Store.Fail(ctx, task.UID, jobID, reason)
	return err
}

// DeleteWorker removes print files nothing refers to.
type DeleteWorker struct {
	river.WorkerDefaults[DeleteArgs]
	Files *files.Store
}

// Work deletes the file, or the files under the prefix; a missing one is
// already done.
func (w *DeleteWorker) Work(ctx context.Context, job *river.Job[DeleteArgs]) error {
	if job.Args.Prefix != "" {
		return w.Files.DeletePrefix(ctx, job.Args.Prefix)
	}
	return w.Files.Delete(ctx, job.Args.Key)
}

// Register adds the print-file workers to workers: r renders order items
// (r.Store is theirs), and the same with shop as its store renders shop
// prints.
func Register(workers *river.Workers, r Renderer, shop Store) {
	river.AddWorker(workers, &RenderWorker[RenderArgs]{Renderer: r})
	shopRenderer := r
	shopRenderer.Store = shop
	river.AddWorker(workers, &RenderWorker[ShopRenderArgs]{Renderer: shopRenderer})
	river.AddWorker(workers, &DeleteWorker{Files: r.Files})
}
