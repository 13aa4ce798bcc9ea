package batches

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
	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/files"
	"github.com/platen-print/platen/internal/fonts"
	"github.com/platen-print/platen/internal/press"
	"github.com/platen-print/platen/internal/queue"
	"github.com/platen-print/platen/internal/renderjobs"
	"github.com/platen-print/platen/internal/renderproc"
	"github.com/platen-print/platen/internal/templates"
)

// Worker renders batches: one file per template, each laid out by one
// call to the render service (internal/impose runs there, in the render
// processes, under their limits).
type Worker struct {
	river.WorkerDefaults[Args]
	Store    Store
	Settings renderjobs.Settings
	Render   renderv1.RenderServiceClient
	Files    *files.Store
	Logger   *slog.Logger
	// RenderLimit is the longest one render may take (--render-timeout).
	RenderLimit time.Duration
	// Teams and Renders cap each team's jobs and render calls at once, as
	// renderjobs.Renderer's do.
	Teams, Renders *renderjobs.TeamLimit
	// Fonts finds the team's fonts the designs name; nil for none.
	Fonts *fonts.Resolver
	// Press resolves a template's press settings over the team's
	// default; nil for the built-in ones.
	Press *press.Resolver
}

// Timeout bounds a batch: a render's job time per file.
func (w *Worker) Timeout(job *river.Job[Args]) time.Duration {
	return time.Duration(max(job.Args.Templates, 1)) * renderjobs.JobTimeout(w.RenderLimit)
}

// NextRetry spaces the attempts as a render's.
func (w *Worker) NextRetry(job *river.Job[Args]) time.Time { return renderjobs.NextRetry(job.Attempt) }

// Work renders the batch's files, stores them and makes it Ready; a batch
// that can never render fails at once, other failures after
// renderjobs.RenderAttempts attempts, either way with the reason.
func (w *Worker) Work(ctx context.Context, job *river.Job[Args]) error {
	b, err := w.Store.Batch(ctx, job.Args.BatchUID)
	if errors.Is(err, apierr.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if b.Status != StatusBatching || b.JobID == nil || *b.JobID != job.ID {
		return nil // already settled, or another job's
	}
	if n := renderjobs.Interruptions(job.JobRow); n >= renderjobs.MaxInterruptions {
		return w.fail(ctx, b, job.ID, fmt.Sprintf("rendering was interrupted %d times (the process working it stopped); giving up", n))
	}
	if !w.Teams.Acquire(ctx, b.TeamID) {
		return queue.Postpone(renderjobs.PostponeFor())
	}
	defer w.Teams.Release(b.TeamID)
	start := time.Now()
	stored, err := w.render(ctx, b, job.ID)
	if err == nil {
		rendered := time.Since(start)
		err := w.finish(ctx, b, job.ID, stored)
		w.Logger.Info("batch ready", "batch_uid", b.UID, "job_id", job.ID, "files", len(stored),
			"queued", start.Sub(job.CreatedAt), "rendered", rendered, "recorded", time.Since(start)-rendered)
		return err
	}
	if rmErr := w.remove(ctx, stored); rmErr != nil {
		w.Logger.Warn("could not remove the files of a failed batch attempt", "batch_uid", b.UID, "error", rmErr)
	}
	var gone *goneError
	switch {
	case errors.As(err, &gone), renderproc.Permanent(err):
		return w.fail(ctx, b, job.ID, reason(err))
	case job.Attempt >= renderjobs.RenderAttempts:
		return w.fail(ctx, b, job.ID, fmt.Sprintf("%s (after %d attempts)", reason(err), job.Attempt))
	}
	w.Logger.Warn("batch failed; retrying", "batch_uid", b.UID, "job_id", job.ID, "attempt", job.Attempt, "error", err)
	return err
}

// goneError is an item or a template deleted since the batch was made:
// the batch can never render.
type goneError struct {
	field string // order_items[i] or print_templates[i]
	what  string
}

func (e *goneError) Error() string {
	return fmt.Sprintf("%s: the %s was deleted after the batch was made", e.field, e.what)
}

func reason(err error) string {
	var gone *goneError
	if errors.As(err, &gone) {
		return gone.Error()
	}
	return renderproc.Reason(err)
}

// render renders and stores every template's file, in template order.
// Stored files are returned even with an error, for removal.
func (w *Worker) render(ctx context.Context, b *Batch, jobID int64) ([]File, error) {
	items, designs, dpis, err := w.inputs(ctx, b)
	if err != nil {
		return nil, err
	}
	var stored []File
	for n, uid := range b.PrintTemplates {
		t, err := w.Store.Template(ctx, uid)
		if errors.Is(err, apierr.ErrNotFound) {
			return stored, &goneError{field: fmt.Sprintf("print_templates[%d]", n), what: "print template"}
		}
		if err != nil {
			return stored, err
		}
		req := sheetsRequest(b, n, t, items, designs, dpis)
		pressSettings, err := w.Press.Resolve(ctx, b.TeamID, t.Press)
		if err != nil {
			return stored, err
		}
		req.Settings = &renderv1.PrintSettings{}
		pressSettings.Apply(req.Settings)
		if req.Fonts, err = w.Fonts.Fonts(ctx, b.TeamID, req.GetSheets().GetDocuments()...); err != nil {
			return stored, fmt.Errorf("fonts: %w", err)
		}
		resp, err := renderjobs.RenderHeld(ctx, w.Renders, b.TeamID, w.Render, req, nil)
		if err != nil {
			return stored, err
		}
		if len(resp.GetFiles()) != 1 {
			return stored, fmt.Errorf("the renderer answered %d files for a sheets job", len(resp.GetFiles()))
		}
		f := resp.GetFiles()[0]
		key := fmt.Sprintf("batches/%s/%d-%d.pdf", b.UID, jobID, n+1)
		digest, err := w.Files.Put(ctx, key, bytes.NewReader(f.GetData()), f.GetContentType())
		if err != nil {
			return stored, err
		}
		stored = append(stored, File{TemplateUID: uid, Key: key, Pages: int(f.GetPageCount()), Digest: digest})
	}
	return stored, nil
}

// inputs reads the batch's items as they are now, their distinct designs
// (decoded) and the DPI of each item's variant.
func (w *Worker) inputs(ctx context.Context, b *Batch) ([]*Item, map[string][]byte, map[string]uint32, error) {
	found, err := w.Store.Items(ctx, auth.Principal{TeamID: b.TeamID}, b.OrderItems)
	if err != nil {
		return nil, nil, nil, err
	}
	items := make([]*Item, len(b.OrderItems))
	for i, uid := range b.OrderItems {
		if items[i] = found[uid]; items[i] == nil {
			return nil, nil, nil, &goneError{field: fmt.Sprintf("order_items[%d]", i), what: "order item"}
		}
	}
	stored, err := w.Store.Designs(ctx, b.TeamID, items)
	if err != nil {
		return nil, nil, nil, err
	}
	designs := make(map[string][]byte, len(stored))
	for key, config := range stored {
		if designs[key], err = designdoc.Decode(config); err != nil {
			designs[key] = []byte(config) // the render names the item and why
		}
	}
	dpis := map[string]uint32{}
	for _, it := range items {
		if _, ok := dpis[it.EcommerceVariantID]; ok {
			continue
		}
		s, err := w.Settings.Resolve(ctx, b.TeamID, it.EcommerceVariantID, nil)
		if err != nil {
			return nil, nil, nil, err
		}
		dpis[it.EcommerceVariantID] = uint32(s.DPI) //nolint:gosec // at most designdoc.MaxDPI
	}
	return items, designs, dpis, nil
}

// sheetsRequest is the render of template n's file: the items it places,
// in batch order, each distinct design sent once.
func sheetsRequest(b *Batch, n int, t *templates.Template, items []*Item, designs map[string][]byte, dpis map[string]uint32) *renderv1.RenderRequest {
	job := &renderv1.SheetsJob{BatchUid: b.UID, Template: renderproc.TemplateToProto(t)}
	index := map[string]int32{}
	for i, it := range items {
		if b.ItemTemplates[i] != n {
			continue
		}
		doc, ok := index[it.DesignKey]
		if !ok {
			doc = int32(len(job.Documents)) //nolint:gosec // at most MaxItems
			index[it.DesignKey] = doc
			job.Documents = append(job.Documents, designs[it.DesignKey])
		}
		job.Items = append(job.Items, &renderv1.SheetItem{
			Document: doc, Copies: int32(it.Quantity), Label: it.Label(), //nolint:gosec // quantity is bounded at create
			Dpi: dpis[it.EcommerceVariantID], BatchIndex: int32(i), //nolint:gosec // at most MaxItems
		})
	}
	return &renderv1.RenderRequest{Formats: []renderv1.Format{renderv1.Format_FORMAT_PDF}, Sheets: job}
}

func (w *Worker) finish(ctx context.Context, b *Batch, jobID int64, stored []File) error {
	owned, err := w.Store.FinishBatch(ctx, b.UID, jobID, stored)
	if err != nil || owned {
		return err
	}
	return w.remove(ctx, stored) // settled meanwhile: the files are nobody's
}

func (w *Worker) fail(ctx context.Context, b *Batch, jobID int64, reason string) error {
	w.Logger.Warn("batch failed", "batch_uid", b.UID, "job_id", jobID, "reason", reason)
	_, err := w.Store.FailBatch(ctx, b.UID, jobID, reason)
	return err
}

func (w *Worker) remove(ctx context.Context, stored []File) error {
	for _, f := range stored {
		if err := w.Files.Delete(ctx, f.Key); err != nil {
			return err
		}
	}
	return nil
}
