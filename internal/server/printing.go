package server

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/riverqueue/river"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/batches"
	"github.com/platen-print/platen/internal/catalog"
	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/downloads"
	"github.com/platen-print/platen/internal/fetch"
	"github.com/platen-print/platen/internal/files"
	"github.com/platen-print/platen/internal/fonts"
	"github.com/platen-print/platen/internal/press"
	"github.com/platen-print/platen/internal/prints"
	"github.com/platen-print/platen/internal/queue"
	"github.com/platen-print/platen/internal/renderjobs"
	"github.com/platen-print/platen/internal/renderproc"
	"github.com/platen-print/platen/internal/storage"
	"github.com/platen-print/platen/internal/webhooks"
)

// Names of the service's own keys in the database. LinkKeyName's is the
// key `platen admin keys rotate-links` rotates.
const (
	LinkKeyName  = "download-links"
	filesKeyName = "local-file-urls"
)

// pollInterval bounds the wait between a commit and its job starting:
// neither database/sql driver lets River listen for new jobs.
const pollInterval = 100 * time.Millisecond

// quickWorkers run the default queue's short jobs (file clean-ups).
const quickWorkers = 4

// startPrinting opens the file store, signs links with the database's key,
// picks the renderer (in process, or remote `platen render`s), prepares
// the job queue (started by startQueue once the APIs serve) and the stores
// that queue their work on it.
func (s *Server) startPrinting(ctx context.Context) error {
	s.fetcher = fetch.New(fetch.Config{AllowPrivateNetwork: s.cfg.AllowPrivateNetwork})
	filesKey, err := s.db.ServiceKey(ctx, filesKeyName)
	if err != nil {
		return err
	}
	blobURL, err := s.cfg.BlobURLOrDefault()
	if err != nil {
		return err
	}
	s.files, err = files.Open(ctx, blobURL, s.publicURL(), filesKey)
	if err != nil {
		return fmt.Errorf("--blob-url: %w", err)
	}
	s.onShutdown(func(context.Context) error { return s.files.Close() })
	keys, err := newLinkKeys(ctx, s.db, LinkKeyName)
	if err != nil {
		return err
	}
	s.links = downloads.NewLinks(keys.signer, s.publicURL(), s.db.Downloads(), s.files)
	s.links.ReloadKeysWith(keys.reloadOnMiss)
	s.refreshLinkKeys(keys)
	renderWorkers := s.cfg.RenderWorkers
	if renderWorkers == 0 {
		renderWorkers = runtime.NumCPU()
	}
	// One render process more than a team may use: a team with hundreds
	// of renders leaves one to everyone else.
	renderer, err := s.renderClient(renderWorkers + 1)
	if err != nil {
		return err
	}
	previewer, err := s.previewClient(renderer, previewWorkers(renderWorkers))
	if err != nil {
		return err
	}
	renderer = renderproc.Measured(byKind{prints: renderer, previews: previewer}, s.registry)
	s.fonts = fonts.NewResolver(s.db.Fonts(), s.sharedFonts)
	// The queue comes first, on a bundle of workers still empty: the
	// stores queue their work on it, and its workers write through those
	// stores. River reads the bundle when it inserts and works jobs, so
	// the workers join it below, before anything is queued or worked.
	workers := river.NewWorkers()
	if s.queue, err = s.newQueue(workers, renderWorkers); err != nil {
		return err
	}
	stores, err := storage.NewStores(s.db, JobQueue(s.queue))
	if err != nil {
		return err
	}
	if s.stores, err = stores.WithLinks(s.links); err != nil {
		return err
	}
	s.previews = prints.NewPreviews(prints.PreviewConfig{
		Designs: s.stores.Prints(), Render: renderer, Files: s.files, Fonts: s.fonts,
		Workers: previewWorkers(renderWorkers), Timeout: s.previewTimeout(), Logger: slog.Default(),
	})
	s.onShutdown(func(context.Context) error { s.previews.Close(); return nil })
	s.addWorkers(workers, renderer, renderWorkers)
	return nil
}

// newQueue is the job queue of this process, working workers.
func (s *Server) newQueue(workers *river.Workers, renderWorkers int) (*queue.Queue, error) {
	q, err := queue.New(s.db.JobPool(), s.db.Dialect(), workers, queue.Config{
		Workers:      quickWorkers,
		Queues:       map[string]int{renderjobs.RenderQueue: renderJobsPerSlot*(renderWorkers+1) + renderLinePerSlot*renderWorkers, webhooks.Queue: webhooks.Workers},
		PollInterval: pollInterval,
		ID:           s.process,
		JobTimeout:   time.Minute,
		RescueAfter:  renderjobs.JobTimeout(s.cfg.Render.Timeout) + time.Minute,
		Logger:       slog.Default(),
	})
	if err != nil {
		return nil, err
	}
	s.registry.MustRegister(q.Collector(renderjobs.RenderQueue, webhooks.Queue))
	return q, nil
}

// addWorkers adds to workers the workers of renders (by renderer, with
// renderWorkers at once), batches and webhook deliveries, on s's stores.
func (s *Server) addWorkers(workers *river.Workers, renderer renderv1.RenderServiceClient, renderWorkers int) {
	settings := catalog.NewResolver(s.db.Catalog())
	pressSettings := press.NewResolver(s.db.Press())
	teams := renderjobs.NewTeamLimit(renderJobsPerSlot*renderWorkers, renderLinePerSlot*renderWorkers)
	renders := renderjobs.NewTeamLimit(renderWorkers, 0)
	renderjobs.Register(workers, renderjobs.Renderer{
		Store:       s.stores.PrintFiles(),
		Settings:    settings,
		Render:      renderer,
		Files:       s.files,
		Logger:      slog.Default(),
		RenderLimit: s.cfg.Render.Timeout,
		Teams:       teams,
		Renders:     renders,
		Fonts:       s.fonts,
		Press:       pressSettings,
	}, s.stores.ShopPrints())
	river.AddWorker(workers, &batches.Worker{
		Store: s.stores.Batches(), Settings: settings, Render: renderer, Files: s.files,
		Logger: slog.Default(), RenderLimit: s.cfg.Render.Timeout, Teams: teams, Renders: renders, Fonts: s.fonts,
		Press: pressSettings,
	})
	river.AddWorker(workers, &webhooks.Deliverer{
		Store:       s.stores.Deliveries(),
		Client:      webhooks.NewClient(s.fetcher.DialContext),
		RetryDelays: s.cfg.WebhookRetryDelays,
		Limits:      s.webhookLimits(),
		Metrics:     webhooks.NewMetrics(s.registry),
		Logger:      slog.Default(),
	})
}

// webhookLimits are the defaults, with the times tests shorten.
func (s *Server) webhookLimits() *webhooks.Limits {
	l := webhooks.DefaultLimits
	if t := s.cfg.WebhookAttemptTimeout; t > 0 {
		l.AttemptTimeout = t
	}
	if p := s.cfg.WebhookPause; p > 0 {
		l.Pause, l.MaxPause = p, 20*p
	}
	return &l
}

// JobQueue is the stores' queue on q: renders, file deletes and webhook
// deliveries. Admin commands use it with an insert-only q.
func JobQueue(q *queue.Queue) storage.JobQueue {
	return jobQueue{renderjobs.NewJobs(q), webhooks.NewDeliveryJobs(q), batches.NewQueue(q)}
}

type jobQueue struct {
	*renderjobs.Jobs
	*webhooks.DeliveryJobs
	*batches.Queue
}

// renderJobsPerSlot is how many render jobs run per render at once, for a
// team as for the process. A job also reads and writes the database and
// the file store, so with more jobs than renders one job's I/O overlaps
// another's render: on PostgreSQL, one job per slot left the CPU
// two-thirds idle at 140 cheap renders a second, and one team's jobs held
// to one per render made 86 pages a second of the 150 asked (BENCHMARKS.md).
// The team's render calls stay capped at --render-workers, one render
// process fewer than the process runs.
const renderJobsPerSlot = 2

// renderLinePerSlot is how many of a team's renders may wait in this
// process for each render the team may run (renderjobs.TeamLimit), on top
// of the jobs above: a burst of one team's orders is worked as fast as the
// renders go, rather than postponed by half a second or more, while the
// other teams' jobs still find their slots free.
const renderLinePerSlot = 8

// renderClient is the in-process render service, rendering at most slots
// at once, or a client of the --render-addr processes (which bound their
// own).
func (s *Server) renderClient(slots int) (renderv1.RenderServiceClient, error) {
	if len(s.cfg.RenderAddrs) > 0 {
		client, closer, err := renderproc.Dial(s.cfg.RenderAddrs)
		if err != nil {
			return nil, fmt.Errorf("--render-addr: %w", err)
		}
		s.onShutdown(func(context.Context) error { return closer.Close() })
		return client, nil
	}
	// Fonts are loaded here too, so that a broken font file stops serve at
	// start rather than every render process after it; and so that a
	// team's font is not named after one of them.
	shared, err := renderproc.LoadFonts(s.cfg.FontDir, s.cfg.FallbackFonts)
	if err != nil {
		return nil, fmt.Errorf("--font-dir: %w", err)
	}
	WarnMissingFallbacks(s.cfg.FallbackFonts)
	s.sharedFonts = shared.Has
	sup, err := renderproc.Start(RenderProcesses(s.cfg.Render, s.cfg.LogLevel, slots))
	if err != nil {
		return nil, err
	}
	s.onShutdown(func(context.Context) error { return sup.Close() })
	return sup, nil
}

// RenderProcesses is the render supervision of n processes with the
// settings of r: `platen serve` and `platen render` render alike.
func RenderProcesses(r config.Render, logLevel string, n int) renderproc.Config {
	return renderproc.Config{
		Processes: n,
		Limits: renderproc.Limits{
			Time: r.Timeout, CPU: r.Timeout,
			MemoryBytes: int64(r.MemoryMB) << 20,
		},
		FontDir:             r.FontDir,
		FallbackFonts:       r.FallbackFonts,
		AllowPrivateNetwork: r.AllowPrivateNetwork,
		LogLevel:            logLevel,
		Logs:                os.Stderr,
		OnDemand:            r.ProcessesOnDemand,
	}
}

// startQueue makes the jobs a crash left running available again, then
// starts working; on shutdown running jobs get until the deadline.
func (s *Server) startQueue(ctx context.Context) error {
	if n, err := s.queue.Rescue(ctx); err != nil {
		return err
	} else if n > 0 {
		slog.Info("resumed jobs interrupted by the last stop", "count", n)
	}
	if err := s.queue.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("start the job queue: %w", err)
	}
	s.onShutdown(s.queue.Stop)
	return nil
}

// publicURL is the base of download links: --public-url, else the HTTP
// listener's address.
func (s *Server) publicURL() string {
	if s.cfg.PublicURL != "" {
		return s.cfg.PublicURL
	}
	return "http://" + s.httpLis.Addr().String()
}

// queueID names this process to the job queue, the same across restarts
// of a serve on one host and data directory (ports may change), so that a
// restart finds the jobs it left running (see queue.Rescue); each run adds
// a suffix of its own, by which a running process puts back the jobs whose
// end it could not record (queue.Config.ReclaimAfter). Jobs of a host that
// never comes back are rescued by River after RescueAfter. It also names
// the process's readiness row.
func (s *Server) queueID() string {
	host, _ := os.Hostname()
	dir, err := filepath.Abs(s.cfg.DataDir)
	if err != nil {
		dir = s.cfg.DataDir
	}
	sum := sha256.Sum256([]byte(dir))
	id := fmt.Sprintf("platen-%s-%x", host, sum[:4])
	if len(id) > 100 {
		id = id[:100]
	}
	return id
}

// WarnMissingFallbacks logs the fallback fonts that are not there: a
// character only they have fails its print, naming it.
func WarnMissingFallbacks(fallbacks []string) {
	for _, path := range renderproc.MissingFallbacks(fallbacks) {
		slog.Warn("a fallback font is missing: characters only it has fail their prints (Debian: apt install fonts-noto-core fonts-droid-fallback fonts-nanum fonts-symbola; or --fallback-fonts)", "file", path)
	}
}
