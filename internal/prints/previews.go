package prints

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/files"
	"github.com/platen-print/platen/internal/fonts"
	"github.com/platen-print/platen/internal/renderproc"
)

// View is one picture of a print: a page (a design surface, from 0) at a
// size.
type View struct {
	Page int
	Size Size
}

// Size is how large a preview is drawn.
type Size int

// The preview sizes, by resolution: Thumb makes an A6 card 150 × 210
// pixels (the list), PageSize 300 × 420 (a print's page), Zoom 1,180
// × 1,650 (a print's page zoomed, to read small type and check edges).
const (
	Thumb    Size = 36
	PageSize Size = 72
	Zoom     Size = 200
)

// previewTTL is how long a preview's signed file URL lives.
const previewTTL = 15 * time.Minute

// DefaultPreviewTimeout is a preview's render budget: a preview is a
// small picture, which a legitimate design draws in well under a second;
// one that takes longer is stopped (its render process killed) and shows
// a placeholder, rather than holding a render process for minutes.
const DefaultPreviewTimeout = 5 * time.Second

const (
	// previewLinePerTeam is how many of a team's previews may wait for a
	// render; past it a request answers "busy" at once.
	previewLinePerTeam = 16
	// documentFailureFor is how long a preview that the design cannot
	// give (too slow, invalid, crashing) is not tried again; a design that
	// changes has another key, so it is tried at once.
	documentFailureFor = 10 * time.Minute
	// otherFailureFor is the same for a failure that was not the
	// design's (a file store or database error).
	otherFailureFor = 30 * time.Second
)

// Why a print has no preview to show now.
const (
	ReasonPending = "pending" // it is being made
	ReasonBusy    = "busy"    // the team's previews already fill its line
	ReasonSlow    = "slow"    // it took longer than its budget
	ReasonFailed  = "failed"  // it could not be drawn
)

// Unavailable is why a print's preview cannot be shown now: the panel
// shows a placeholder saying so instead of waiting.
type Unavailable struct {
	Reason string
	// Message is the placeholder's words.
	Message string
}

func (u *Unavailable) Error() string { return "preview " + u.Reason + ": " + u.Message }

// DesignSource finds the design document of a print.
type DesignSource interface {
	// PrintDesign returns a key that changes whenever the print's design
	// does (the hash the database keeps of it), and a function that reads
	// the design (template_config as stored: URL-encoded or not), so that
	// a preview already made costs no read of the design; and the print's
	// team, whose fonts the design may name.
	PrintDesign(ctx context.Context, id string) (key string, teamID int, load func(context.Context) (string, error), err error)
}

// PreviewConfig is what Previews render with.
type PreviewConfig struct {
	Designs DesignSource
	// Render draws previews. It should be render processes of their own
	// (or bounded apart from print renders): Previews bound how many they
	// run at once (Workers) and for how long (Timeout), not the processes.
	Render renderv1.RenderServiceClient
	Files  *files.Store
	// Fonts finds the team's fonts a design names; nil for none.
	Fonts *fonts.Resolver
	// Workers is how many previews render at once; at least 1.
	Workers int
	// Timeout is one preview's render budget (DefaultPreviewTimeout when
	// 0); a request waits for its preview at most a second longer.
	Timeout time.Duration
	Logger  *slog.Logger
}

// Previews makes small PNGs of prints' first pages with the render
// service, once per design: each is kept in the file store under the
// design's hash, so a changed design gets a new one. Previews render
// a few at once, one per team at a time, the teams in turn, each within
// its budget; a request waits for its preview a moment, then answers
// Unavailable (the render goes on). Concurrent requests for one preview
// share its render, and a preview that failed is not tried again for a
// while.
type Previews struct {
	cfg      PreviewConfig
	line     *previewLine
	failures failures
	mu       sync.Mutex
	flights  map[string]*flight
	stop     context.CancelFunc
	stopped  sync.WaitGroup
}

// flight is one preview being made, which every request for it waits on.
type flight struct {
	key  string
	team int
	view View
	load func(context.Context) (string, error)
	done chan struct{}
	err  error // set before done closes
}

// NewPreviews starts cfg.Workers preview workers; Close stops them.
func NewPreviews(cfg PreviewConfig) *Previews {
	cfg.Workers = max(cfg.Workers, 1)
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultPreviewTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	ctx, stop := context.WithCancel(context.Background())
	p := &Previews{cfg: cfg, line: newPreviewLine(previewLinePerTeam, cfg.Workers), flights: map[string]*flight{}, stop: stop}
	for range cfg.Workers {
		p.stopped.Go(func() { p.work(ctx) })
	}
	return p
}

// Close stops the workers, cancelling the renders in flight.
func (p *Previews) Close() {
	p.stop()
	p.stopped.Wait()
}

// URL returns a short-lived URL of the preview of print id, rendering it
// first when it does not exist; an *Unavailable when it cannot be shown
// now.
func (p *Previews) URL(ctx context.Context, id string, v View) (string, error) {
	design, team, load, err := p.cfg.Designs.PrintDesign(ctx, id)
	if err != nil {
		return "", err
	}
	key := previewKey(team, design, v)
	exists, err := p.cfg.Files.Exists(ctx, key)
	if err != nil {
		return "", err
	}
	if !exists {
		if err := p.await(ctx, key, team, v, load); err != nil {
			return "", err
		}
	}
	return p.cfg.Files.SignedURL(ctx, key, "preview.png", previewTTL)
}

// previewKey is the preview's file: a fixed-length name, whatever the
// key's form; the team's, since the same design may name another team's
// font of the same name.
func previewKey(team int, design string, v View) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%d:%s", team, design))
	name := hex.EncodeToString(sum[:16])
	if v != (View{Size: Thumb}) { // the first previews' names, kept
		name += fmt.Sprintf("-%d-%d", v.Page, v.Size)
	}
	return "previews/" + name + ".png"
}

// Pages is how a print's design lays its pages out: each page's name (its
// surface's), and their size, the same for all, in millimetres.
type Pages struct {
	Names                 []string
	TrimWidth, TrimHeight float64
	Bleed                 float64
}

// Pages reads the pages of print id's design.
func (p *Previews) Pages(ctx context.Context, id string) (*Pages, error) {
	_, _, load, err := p.cfg.Designs.PrintDesign(ctx, id)
	if err != nil {
		return nil, err
	}
	config, err := load(ctx)
	if err != nil {
		return nil, err
	}
	doc, err := designdoc.ParseConfig(config)
	if err != nil {
		return nil, err
	}
	out := &Pages{TrimWidth: doc.ToMM(doc.Width), TrimHeight: doc.ToMM(doc.Height), Bleed: doc.ToMM(doc.Bleed)}
	for _, s := range doc.Surfaces {
		out.Names = append(out.Names, s.Name)
	}
	return out, nil
}

// await waits a moment for the preview under key: its render already in
// flight, or a new one in its team's line.
func (p *Previews) await(ctx context.Context, key string, team int, v View, load func(context.Context) (string, error)) error {
	if failed := p.failures.get(key, time.Now()); failed != nil {
		return failed
	}
	f, err := p.join(key, team, v, load)
	if err != nil {
		return err
	}
	wait := time.NewTimer(p.cfg.Timeout + time.Second)
	defer wait.Stop()
	select {
	case <-f.done:
		return f.err
	case <-wait.C:
		return &Unavailable{Reason: ReasonPending, Message: "The preview is being made: reload in a moment."}
	case <-ctx.Done():
		return ctx.Err()
	}
}

// join returns the flight of key, queueing a new one when none is in the
// air.
func (p *Previews) join(key string, team int, v View, load func(context.Context) (string, error)) (*flight, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if f, ok := p.flights[key]; ok {
		return f, nil
	}
	f := &flight{key: key, team: team, view: v, load: load, done: make(chan struct{})}
	if !p.line.add(f) {
		return nil, &Unavailable{Reason: ReasonBusy, Message: "Many previews of this team are being made: reload in a moment."}
	}
	p.flights[key] = f
	return f, nil
}

// work makes the previews of the line, a team's at a time, until ctx ends.
func (p *Previews) work(ctx context.Context) {
	for {
		f, ok := p.line.next(ctx)
		if !ok {
			return
		}
		p.run(ctx, f)
		p.line.done(f.team)
	}
}

// run makes f's preview. Its requests learn a render over budget at the
// budget, not once the render process is killed and its replacement has
// started (loading its fonts takes a while); the team's next preview
// waits for both.
func (p *Previews) run(ctx context.Context, f *flight) {
	made := make(chan error, 1)
	go func() { made <- p.make(ctx, f) }()
	budget := time.NewTimer(p.cfg.Timeout)
	defer budget.Stop()
	select {
	case err := <-made:
		p.finish(f, p.judge(ctx, f, err))
	case <-budget.C:
		p.finish(f, p.judge(ctx, f, context.DeadlineExceeded))
		<-made
	}
}

// finish ends f with err, remembering a failure for later requests.
func (p *Previews) finish(f *flight, err error) {
	p.mu.Lock()
	delete(p.flights, f.key)
	p.mu.Unlock()
	f.err = err
	close(f.done)
}

// judge turns a render's failure into what the placeholder says, and
// remembers it for as long as trying again would fail again.
func (p *Previews) judge(ctx context.Context, f *flight, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil { // the service stops: nothing to remember
		return &Unavailable{Reason: ReasonPending, Message: "The preview is being made: reload in a moment."}
	}
	failed, until := &Unavailable{Reason: ReasonFailed, Message: "No preview: the design cannot be drawn."}, documentFailureFor
	switch class := renderproc.FailureClass(err); {
	case errors.Is(err, context.DeadlineExceeded), class == "limit", class == "cancelled":
		failed = &Unavailable{Reason: ReasonSlow, Message: "No preview: the design takes too long to draw."}
	case class == "document", class == "crash":
	default:
		until = otherFailureFor
		p.cfg.Logger.Warn("preview failed", "error", err)
	}
	p.failures.put(f.key, failed, time.Now().Add(until))
	return failed
}

// make renders f's preview within its budget and stores it; one already
// stored (by a flight that ended as this one began) is not made again.
func (p *Previews) make(ctx context.Context, f *flight) error {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	if exists, err := p.cfg.Files.Exists(ctx, f.key); err != nil || exists {
		return err
	}
	config, err := f.load(ctx)
	if err != nil {
		return err
	}
	doc, err := designdoc.Decode(config)
	if err != nil {
		return fmt.Errorf("preview: %w", err)
	}
	fonts, err := p.cfg.Fonts.Fonts(ctx, f.team, doc)
	if err != nil {
		return fmt.Errorf("preview: fonts: %w", err)
	}
	resp, err := p.cfg.Render.Render(ctx, &renderv1.RenderRequest{
		Document: doc, PreviewDpi: uint32(f.view.Size), Fonts: fonts,
		Formats: []renderv1.Format{renderv1.Format_FORMAT_PNG}, SurfaceIndexes: []int32{int32(f.view.Page)}, //nolint:gosec // a page the panel checked
	})
	if err != nil {
		return err
	}
	if len(resp.GetFiles()) != 1 {
		return fmt.Errorf("preview: the renderer answered %d files", len(resp.GetFiles()))
	}
	_, err = p.cfg.Files.Put(ctx, f.key, bytes.NewReader(resp.GetFiles()[0].GetData()), "image/png")
	return err
}
