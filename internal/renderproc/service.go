// Server is the render service of proto/platen/render/v1: it
// turns a design document into print files with internal/render, fetching
// images with internal/fetch. `platen serve` calls it in process (Local) or
// on `platen render` processes over gRPC (Dial, Serve). Its status codes
// tell the job queue what to do: INVALID_ARGUMENT is a document that will
// never render (Permanent), any other code may pass on a retry.

package renderproc

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"google.golang.org/grpc/status"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/fetch"
	"github.com/platen-print/platen/internal/render"
)

// DefaultDPI is the DPI when neither the document nor the settings give one.
const DefaultDPI = 300

// Options are what a Server renders with.
type Options struct {
	// Fetcher fetches the images layers name; meant to live as long as the
	// process, for its cache. Nil means one with the default limits, which
	// refuses private addresses.
	Fetcher *fetch.Fetcher
	// Fonts resolves font names; nil means the built-in fonts only.
	Fonts *render.Fonts
	// Logger logs renders; nil means slog.Default().
	Logger *slog.Logger
	// MaxConcurrent bounds the renders running at once; more calls wait
	// their turn (or their deadline). 0 means no bound.
	MaxConcurrent int
}

// Server implements renderv1.RenderServiceServer. It is stateless and safe
// for concurrent use.
type Server struct {
	renderv1.UnimplementedRenderServiceServer
	renderer *render.Renderer
	images   images
	logger   *slog.Logger
	// slots holds a token per render running; nil when unbounded. A 300
	// DPI PNG holds about 150 MB while it renders, and two at once already
	// share the memory bandwidth of these machines (BENCHMARKS.md).
	slots chan struct{}
	// intents are the output intents requests brought, prepared.
	intents intents
}

// NewServer returns a Server rendering with opts.
func NewServer(opts Options) *Server {
	fetcher := opts.Fetcher
	if fetcher == nil {
		fetcher = fetch.New(fetch.Config{})
	}
	fonts := opts.Fonts
	if fonts == nil {
		fonts = render.NewFonts(nil)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	srv := &Server{renderer: render.New(images{fetcher}, fonts), images: images{fetcher}, logger: logger}
	if opts.MaxConcurrent > 0 {
		srv.slots = make(chan struct{}, opts.MaxConcurrent)
	}
	return srv
}

// images adapts a Fetcher to the renderer's ImageSource.
type images struct{ fetcher *fetch.Fetcher }

func (i images) Image(ctx context.Context, src string) (*render.Image, error) {
	img, err := i.fetcher.Fetch(ctx, src)
	if err != nil {
		return nil, err
	}
	return &render.Image{Data: img.Data, Format: img.Format}, nil
}

// requestImages are the images of one request, each fetched (or decoded
// from its data: URL) once for its preflight and its renders alike: a
// design carrying a photo as a data: URL is a megabyte of base64, which
// each pass decoded again.
type requestImages struct {
	source images
	mu     sync.Mutex
	got    map[string]*render.Image
}

func (r *requestImages) Image(ctx context.Context, src string) (*render.Image, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if img, ok := r.got[src]; ok {
		return img, nil
	}
	img, err := r.source.Image(ctx, src)
	if err != nil {
		return nil, err
	}
	if r.got == nil {
		r.got = map[string]*render.Image{}
	}
	r.got[src] = img
	return img, nil
}

// job is one validated request.
type job struct {
	renderer *render.Renderer
	doc      *designdoc.Document
	dpi      int
	formats  []renderv1.Format
	surfaces []int
	perPage  bool
	// settings are what its files are made with: dpi and the press
	// settings.
	settings render.Settings
	// limits fail the job when its preflight crosses them.
	limits render.Limits
}

// Render renders the selected surfaces of the document in each requested
// format: the files come per format, in surface order.
func (s *Server) Render(ctx context.Context, req *renderv1.RenderRequest) (*renderv1.RenderResponse, error) {
	if s.slots != nil {
		select {
		case s.slots <- struct{}{}:
			defer func() { <-s.slots }()
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		}
	}
	start := time.Now()
	variant := slog.Int("variant_id", int(req.GetSettings().GetVariantId()))
	files, warnings, err := s.renderRequest(ctx, req)
	if err != nil {
		st := toStatus(ctx, err)
		s.logger.LogAttrs(ctx, levelOf(st.Code()), "render failed", slog.String("code", st.Code().String()),
			slog.String("reason", st.Message()), variant, slog.Duration("duration", time.Since(start)))
		return nil, st.Err()
	}
	s.logger.LogAttrs(ctx, slog.LevelDebug, "rendered", slog.Int("files", len(files)), variant,
		slog.Duration("duration", time.Since(start)))
	return &renderv1.RenderResponse{Files: files, Warnings: warnings}, nil
}

func (s *Server) renderRequest(ctx context.Context, req *renderv1.RenderRequest) (files []*renderv1.RenderedFile, warnings []*renderv1.PreflightWarning, err error) {
	// The drawing library panics on some geometry (a path of NaN): the
	// render fails with the panic's message, and the process lives on.
	defer func() {
		if r := recover(); r != nil {
			s.logger.Error("render panicked", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			files, warnings, err = nil, nil, CrashedError(fmt.Sprintf("render crashed: %v", r))
		}
	}()
	added, err := addedFonts(req.GetFonts())
	if err != nil {
		return nil, nil, err
	}
	renderer := s.renderer.WithFonts(added).WithImages(&requestImages{source: s.images})
	settings, limits, err := s.press(req.GetSettings())
	if err != nil {
		return nil, nil, err
	}
	if req.GetSheets() != nil {
		files, err = s.sheets(ctx, renderer, req, settings, limits)
		return files, nil, err
	}
	j, err := newJob(req)
	if err != nil {
		return nil, nil, err
	}
	settings.DPI = j.dpi
	j.renderer, j.settings, j.limits = renderer, settings, limits
	// A print its limits fail is not rendered at all: the preflight comes
	// first, and its images are in the fetcher's cache for the render.
	if req.GetPreflight() || limits != (render.Limits{}) {
		found, err := s.preflight(ctx, j)
		if err != nil {
			return nil, nil, err
		}
		if req.GetPreflight() {
			warnings = found
		}
	}
	files, err = s.render(ctx, j)
	if err != nil {
		return nil, nil, err
	}
	return files, warnings, nil
}

// preflight checks the job's surfaces at its DPI against its limits.
func (s *Server) preflight(ctx context.Context, j *job) ([]*renderv1.PreflightWarning, error) {
	found, err := j.renderer.Preflight(ctx, j.doc, j.settings, j.limits, j.surfaces...)
	if err != nil {
		return nil, err
	}
	warnings := make([]*renderv1.PreflightWarning, len(found))
	for i, w := range found {
		warnings[i] = &renderv1.PreflightWarning{Code: w.Code, Layer: w.Path, Message: w.Message}
	}
	return warnings, nil
}

// newJob parses and checks a request; its errors are the caller's fault.
func newJob(req *renderv1.RenderRequest) (*job, error) {
	doc, err := designdoc.Parse(req.GetDocument())
	if err != nil {
		return nil, invalid(err.Error())
	}
	dpi, err := resolveDPI(doc, req.GetSettings().GetDpi())
	if err != nil {
		return nil, err
	}
	if preview := req.GetPreviewDpi(); preview > 0 {
		if preview > designdoc.MaxDPI {
			return nil, invalid(fmt.Sprintf("preview_dpi: must be at most %d, got %d", designdoc.MaxDPI, preview))
		}
		dpi = int(preview)
	}
	formats, err := checkFormats(req.GetFormats())
	if err != nil {
		return nil, err
	}
	surfaces, err := checkSurfaces(req.GetSurfaceIndexes(), len(doc.Surfaces))
	if err != nil {
		return nil, err
	}
	return &job{doc: doc, dpi: dpi, formats: formats, surfaces: surfaces, perPage: req.GetPdfPerSurface()}, nil
}

// resolveDPI is the document's own dpi, else the settings', else 300.
func resolveDPI(doc *designdoc.Document, settings uint32) (int, error) {
	switch {
	case doc.DPI > 0:
		return doc.DPI, nil
	case settings > designdoc.MaxDPI:
		return 0, invalid(fmt.Sprintf("settings.dpi: must be at most %d, got %d", designdoc.MaxDPI, settings))
	case settings > 0:
		return int(settings), nil
	}
	return DefaultDPI, nil
}

// checkFormats returns the formats, each once, in the order first asked.
func checkFormats(formats []renderv1.Format) ([]renderv1.Format, error) {
	if len(formats) == 0 {
		return nil, invalid("formats: at least one is required (FORMAT_PDF, FORMAT_PNG)")
	}
	seen := map[renderv1.Format]bool{}
	var out []renderv1.Format
	for i, f := range formats {
		switch f {
		case renderv1.Format_FORMAT_PDF, renderv1.Format_FORMAT_PNG:
		default:
			return nil, invalid(fmt.Sprintf("formats[%d]: %s is not a format to render (FORMAT_PDF, FORMAT_PNG)", i, f))
		}
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out, nil
}

// checkSurfaces returns the surfaces to render: every one when none are
// named.
func checkSurfaces(indexes []int32, count int) ([]int, error) {
	out := make([]int, 0, max(len(indexes), count))
	if len(indexes) == 0 {
		for i := range count {
			out = append(out, i)
		}
		return out, nil
	}
	for i, n := range indexes {
		if n < 0 || int(n) >= count {
			return nil, invalid(fmt.Sprintf("surface_indexes[%d]: the document has no surface %d (it has %d, from 0)", i, n, count))
		}
		out = append(out, int(n))
	}
	return out, nil
}

func (s *Server) render(ctx context.Context, j *job) ([]*renderv1.RenderedFile, error) {
	var files []*renderv1.RenderedFile
	for _, f := range j.formats {
		var (
			more []*renderv1.RenderedFile
			err  error
		)
		if f == renderv1.Format_FORMAT_PDF {
			more, err = s.pdfs(ctx, j)
		} else {
			more, err = s.pngs(ctx, j)
		}
		if err != nil {
			return nil, err
		}
		files = append(files, more...)
	}
	return files, nil
}

// pdfs renders one PDF of every selected surface, or one per surface.
func (s *Server) pdfs(ctx context.Context, j *job) ([]*renderv1.RenderedFile, error) {
	groups := [][]int{j.surfaces}
	if j.perPage {
		groups = groups[:0]
		for _, i := range j.surfaces {
			groups = append(groups, []int{i})
		}
	}
	files := make([]*renderv1.RenderedFile, 0, len(groups))
	for _, surfaces := range groups {
		data, err := j.renderer.PDF(ctx, j.doc, j.settings, surfaces...)
		if err != nil {
			return nil, err
		}
		files = append(files, j.file(renderv1.Format_FORMAT_PDF, surfaces, data))
	}
	return files, nil
}

// pngs renders one PNG per selected surface.
func (s *Server) pngs(ctx context.Context, j *job) ([]*renderv1.RenderedFile, error) {
	files := make([]*renderv1.RenderedFile, 0, len(j.surfaces))
	for _, i := range j.surfaces {
		data, err := j.renderer.PNG(ctx, j.doc, i, j.settings)
		if err != nil {
			return nil, err
		}
		files = append(files, j.file(renderv1.Format_FORMAT_PNG, []int{i}, data))
	}
	return files, nil
}

var contentTypes = map[renderv1.Format]string{
	renderv1.Format_FORMAT_PDF: "application/pdf",
	renderv1.Format_FORMAT_PNG: "image/png",
}

// file describes data, a rendering of surfaces (a page each).
func (j *job) file(f renderv1.Format, surfaces []int, data []byte) *renderv1.RenderedFile {
	w, h := j.pagePixels()
	first := surfaces[0]
	return &renderv1.RenderedFile{
		SurfaceIndex: int32(first), //nolint:gosec // at most design's 100 surfaces
		SurfaceName:  j.doc.Surfaces[first].Name,
		Format:       f,
		ContentType:  contentTypes[f],
		Data:         data,
		WidthPx:      w,
		HeightPx:     h,
		Dpi:          uint32(j.dpi),        //nolint:gosec // 1 to designdoc.MaxDPI
		PageCount:    int32(len(surfaces)), //nolint:gosec // bounded by the request's size
	}
}

// pagePixels is the page size with bleed at the job's DPI, rounded as the
// renderer sizes its PNGs, so that the numbers match the PNG's own.
func (j *job) pagePixels() (uint32, uint32) {
	d := j.doc
	dpmm := float64(j.dpi) * (1.0 / 25.4)
	px := func(mm float64) uint32 { return uint32(mm*dpmm + 0.5) }
	return px(d.ToMM(d.Width) + 2*d.ToMM(d.Bleed)), px(d.ToMM(d.Height) + 2*d.ToMM(d.Bleed))
}
