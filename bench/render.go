package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/platen-print/platen/bench/loadgen"
	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/procstat"
	"github.com/platen-print/platen/internal/render/reference"
)

// RenderOptions configures the rendering benchmarks of issue 4, all on the
// reference page (internal/render/reference) at 300 DPI.
type RenderOptions struct {
	// Platen is the path of the platen binary to benchmark.
	Platen string
	// Runs is how many renders of each format are timed one at a time,
	// after two unmeasured ones; RSVGRuns the same for rsvg-convert.
	Runs, RSVGRuns int
	// Window is how long each throughput step is measured, after a quarter
	// of it unmeasured; Callers are the steps' numbers of concurrent callers.
	Window  time.Duration
	Callers []int
	// Orders is how many orders are timed from POST to ready, one at a
	// time, after one unmeasured order.
	Orders int
	// PostgresURL, when set, also times orders on PostgreSQL.
	PostgresURL string
	// Photo is the page's JPEG: reference.Photo unless another is given.
	Photo []byte
}

func (o RenderOptions) validate() error {
	switch {
	case o.Platen == "":
		return errors.New("-platen is required")
	case o.Runs <= 0 || o.RSVGRuns <= 0 || o.Orders <= 0:
		return errors.New("-render-runs, -rsvg-runs and -orders must be positive")
	case o.Window <= 0:
		return errors.New("-render-d must be positive")
	case len(o.Callers) == 0 || slices.Min(o.Callers) <= 0:
		return errors.New("-render-callers must be positive numbers")
	case len(o.Photo) == 0:
		return errors.New("no photo")
	}
	return nil
}

// formats are the outputs measured, in the order the tables list them.
var formats = []struct {
	name   string // as rsvg-convert's -f spells it
	format renderv1.Format
}{
	{"pdf", renderv1.Format_FORMAT_PDF},
	{"png", renderv1.Format_FORMAT_PNG},
}

// renderBench is one run of the rendering benchmarks.
type renderBench struct {
	RenderOptions
	out, logw io.Writer
	photos    *photoServer
}

// RunRender runs the rendering benchmarks, writing markdown tables to out
// and progress to logw. Each section runs even when an earlier one failed;
// the error then says which did.
func RunRender(ctx context.Context, o RenderOptions, out, logw io.Writer) error {
	if err := o.validate(); err != nil {
		return err
	}
	goVersion, err := builtWith(o.Platen)
	if err != nil {
		return err
	}
	photos, err := startPhotoServer(o.Photo)
	if err != nil {
		return err
	}
	defer photos.close()
	b := &renderBench{RenderOptions: o, out: out, logw: logw, photos: photos}

	fmt.Fprintf(out, "\nplaten-bench render: %s %s/%s, NumCPU %d; platen built with %s; reference page, photo %d bytes, 300 DPI\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), goVersion, len(o.Photo))
	var failed []error
	for _, s := range []struct {
		name string
		run  func(context.Context) error
	}{
		{"time per render", b.sequential},
		{"peak memory", b.memory},
		{"throughput", b.throughput},
		{"POST to ready", b.postToReady},
	} {
		if ctx.Err() != nil {
			break
		}
		if err := s.run(ctx); err != nil {
			fmt.Fprintf(logw, "platen-bench: %s: %v\n", s.name, err)
			failed = append(failed, fmt.Errorf("%s: %w", s.name, err))
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.Join(failed...)
}

// sequential times renders one at a time: rsvg-convert and then platen
// render, back to back for each format, since the host's speed drifts.
func (b *renderBench) sequential(ctx context.Context) error {
	rs, err := newRSVG(b.Photo)
	if err != nil {
		return err
	}
	if rs == nil {
		fmt.Fprintln(b.logw, "platen-bench: rsvg-convert is not installed (apt-get install librsvg2-bin): no comparison")
	} else {
		defer rs.close()
	}
	p, err := startRender(ctx, b.Platen)
	if err != nil {
		return err
	}
	defer p.stop()

	fmt.Fprintf(b.out, "\n### Time per render, one at a time\n\n")
	fmt.Fprintln(b.out, "| renderer | output | runs | p50 ms | p90 ms | min ms | output |")
	fmt.Fprintln(b.out, "|---|---|---:|---:|---:|---:|---|")
	for _, f := range formats {
		if rs != nil {
			if err := b.timeRSVG(ctx, rs, f.name); err != nil {
				return err
			}
		}
		if err := b.timePlaten(ctx, p, f.name, f.format); err != nil {
			return err
		}
	}
	return nil
}

func (b *renderBench) timeRSVG(ctx context.Context, rs *rsvg, format string) error {
	fmt.Fprintf(b.logw, "platen-bench: rsvg-convert %s: %d runs\n", format, b.RSVGRuns)
	if _, _, _, err := rs.run(ctx, format); err != nil { // warms the page cache
		return err
	}
	var took []time.Duration
	var size int64
	for range b.RSVGRuns {
		d, _, n, err := rs.run(ctx, format)
		if err != nil {
			return err
		}
		took, size = append(took, d), n
	}
	b.timingRow("rsvg-convert (whole command)", format, took, fmt.Sprintf("%.1f KB", float64(size)/1e3))
	return nil
}

func (b *renderBench) timePlaten(ctx context.Context, p *renderProc, name string, format renderv1.Format) error {
	fmt.Fprintf(b.logw, "platen-bench: platen render %s: 2 warmup, %d measured\n", name, b.Runs)
	var took []time.Duration
	var file *renderv1.RenderedFile
	for i := range b.Runs + 2 {
		f, d, err := p.render(ctx, reference.Document(b.photos.next()), format)
		if err != nil {
			return err
		}
		if i >= 2 {
			took, file = append(took, d), f
		}
	}
	output := fmt.Sprintf("photo + %.1f KB", float64(len(file.Data)-len(b.Photo))/1e3)
	if format == renderv1.Format_FORMAT_PNG {
		output = fmt.Sprintf("%d×%d px, %.1f KB", file.WidthPx, file.HeightPx, float64(len(file.Data))/1e3)
	}
	b.timingRow("platen render (gRPC call)", name, took, output)
	return nil
}

func (b *renderBench) timingRow(renderer, format string, took []time.Duration, output string) {
	slices.Sort(took)
	fmt.Fprintf(b.out, "| %s | %s | %d | %.1f | %.1f | %.1f | %s |\n", renderer, format, len(took),
		millis(loadgen.Percentile(took, 50)), millis(loadgen.Percentile(took, 90)), millis(took[0]), output)
}

// memory reads the peak resident set of a fresh platen render, the
// highest of its own and its render processes' (where the render runs),
// before and after exactly one render, for each format; and
// rsvg-convert's for one conversion.
func (b *renderBench) memory(ctx context.Context) error {
	fmt.Fprintf(b.out, "\n### Peak memory of one render (fresh process)\n\n")
	fmt.Fprintln(b.out, "| renderer | output | peak RSS idle MB | peak RSS after one render MB | the render's own ms |")
	fmt.Fprintln(b.out, "|---|---|---:|---:|---:|")
	rs, err := newRSVG(b.Photo)
	if err != nil {
		return err
	}
	if rs != nil {
		defer rs.close()
	}
	for _, f := range formats {
		idle, after, took, err := b.onePeak(ctx, f.format)
		if err != nil {
			return err
		}
		fmt.Fprintf(b.out, "| platen render | %s | %.1f | %.1f | %.0f |\n", f.name, mb(idle), mb(after), millis(took))
		if rs != nil {
			took, peak, _, err := rs.run(ctx, f.name)
			if err != nil {
				return err
			}
			fmt.Fprintf(b.out, "| rsvg-convert | %s | | %.1f | %.0f |\n", f.name, mb(peak), millis(took))
		}
	}
	return nil
}

// onePeak starts a process, renders once, and returns its peak resident
// set before and after, and how long that first render took.
func (b *renderBench) onePeak(ctx context.Context, format renderv1.Format) (idle, after int64, took time.Duration, err error) {
	p, err := startRender(ctx, b.Platen)
	if err != nil {
		return 0, 0, 0, err
	}
	defer p.stop()
	if idle, err = treePeakRSS(p.pid); err != nil {
		return 0, 0, 0, err
	}
	if _, took, err = p.render(ctx, reference.Document(b.photos.next()), format); err != nil {
		return 0, 0, 0, err
	}
	after, err = treePeakRSS(p.pid)
	return idle, after, took, err
}

func mb(bytes int64) float64 { return float64(bytes) / (1 << 20) }

// throughput runs, for each format and each number of callers, that many
// callers against a fresh platen render for Window, each with one render
// in flight (a closed loop, as render workers are). A fresh process per
// step keeps each step's peak memory its own.
func (b *renderBench) throughput(ctx context.Context) error {
	fmt.Fprintf(b.out, "\n### Throughput, %d cores\n\n", runtime.NumCPU())
	fmt.Fprintln(b.out, "| output | callers | renders | renders/s | of the first step | p50 ms | platen render CPU, cores | CPU per render ms | platen-bench CPU, cores | peak RSS MB |")
	fmt.Fprintln(b.out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, f := range formats {
		var single float64
		for _, n := range b.Callers {
			fmt.Fprintf(b.logw, "platen-bench: throughput %s, %d callers, %s warmup, %s measured\n", f.name, n, b.Window/4, b.Window)
			r, err := b.step(ctx, f.format, n)
			if err != nil {
				return err
			}
			rate := float64(len(r.latencies)) / r.elapsed.Seconds()
			if single == 0 {
				single = rate
			}
			slices.Sort(r.latencies)
			fmt.Fprintf(b.out, "| %s | %d | %d | %.2f | %.2f× | %.1f | %.2f | %.1f | %.2f | %.0f |\n", f.name, n, len(r.latencies), rate,
				rate/single, millis(loadgen.Percentile(r.latencies, 50)),
				r.cpu.Seconds()/r.elapsed.Seconds(), millis(r.cpu)/float64(len(r.latencies)), r.selfCPU.Seconds()/r.elapsed.Seconds(), mb(r.peak))
		}
	}
	return nil
}

// step is one throughput step in a fresh process.
func (b *renderBench) step(ctx context.Context, format renderv1.Format, callers int) (loadResult, error) {
	p, err := startRender(ctx, b.Platen)
	if err != nil {
		return loadResult{}, err
	}
	defer p.stop()
	// A quarter of the window unmeasured first, at the same concurrency:
	// a fresh process pays for loading fonts and for growing its heap (the
	// kernel zeroing new pages), which a long-running one does not.
	procs := []*renderProc{p}
	if _, err := b.load(ctx, procs, format, callers, b.Window/4); err != nil {
		return loadResult{}, err
	}
	r, err := b.load(ctx, procs, format, callers, b.Window)
	if err != nil {
		return r, err
	}
	// Concurrent renders each hold their page, and the process keeps the
	// photos it fetched (up to its image cache's 256 MB).
	r.peak, err = treePeakRSS(p.pid)
	return r, err
}

type loadResult struct {
	latencies []time.Duration
	// elapsed is the wall time until the last render ended; cpu the render
	// process's CPU time, and selfCPU this one's (the callers and the photo
	// server share the 2 cores with it).
	elapsed, cpu, selfCPU time.Duration
	peak                  int64 // the render process's peak RSS
}

// load runs callers closed-loop callers until window has passed, then
// waits for the renders in flight: every render started is counted, and
// elapsed runs until the last one ends. Caller i calls procs[i%len(procs)].
func (b *renderBench) load(ctx context.Context, procs []*renderProc, format renderv1.Format, callers int, window time.Duration) (loadResult, error) {
	var (
		mu   sync.Mutex
		r    loadResult
		errs []error
		wg   sync.WaitGroup
	)
	cpu0, err := procsCPUTime(procs)
	if err != nil {
		return r, err
	}
	self0, err := procstat.CPUTime(os.Getpid())
	if err != nil {
		return r, err
	}
	start := time.Now()
	deadline := start.Add(window)
	for i := range callers {
		p := procs[i%len(procs)]
		wg.Go(func() {
			for time.Now().Before(deadline) && ctx.Err() == nil {
				_, took, err := p.render(ctx, reference.Document(b.photos.next()), format)
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				} else {
					r.latencies = append(r.latencies, took)
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	r.elapsed = time.Since(start)
	cpu1, err := procsCPUTime(procs)
	self1, selfErr := procstat.CPUTime(os.Getpid())
	r.cpu, r.selfCPU = cpu1-cpu0, self1-self0
	if len(r.latencies) == 0 && len(errs) == 0 {
		errs = append(errs, errors.New("no render completed"))
	}
	return r, errors.Join(append(errs, err, selfErr)...)
}

// orderPause bounds the random pause before each order: above the render
// queue's poll period of 100 ms.
const orderPause = 250 * time.Millisecond

// postToReady times orders of the reference page from the start of their
// POST to the first print status that says ready, one order at a time so
// that each meets an idle server.
func (b *renderBench) postToReady(ctx context.Context) error {
	fmt.Fprintf(b.out, "\n### From POST of an order to ready, at idle\n\n")
	fmt.Fprintln(b.out, "| database | orders | p50 ms | p90 ms | max ms | first order after start, ms | POST answered, p50 ms |")
	fmt.Fprintln(b.out, "|---|---:|---:|---:|---:|---:|---:|")
	databases := []database{sqliteDatabase{}}
	if b.PostgresURL != "" {
		databases = append(databases, postgresDatabase{url: b.PostgresURL})
	}
	var failed []error
	for _, db := range databases {
		if err := b.ordersOn(ctx, db); err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", db.name(), err))
		}
	}
	return errors.Join(failed...)
}

func (b *renderBench) ordersOn(ctx context.Context, db database) (err error) {
	fmt.Fprintf(b.logw, "platen-bench: %s: starting platen serve for %d orders\n", db.name(), b.Orders+1)
	e, err := startEnv(ctx, b.Platen, db, b.logw, "--allow-private-network")
	if err != nil {
		return err
	}
	defer stopKeepingErr(e, &err)
	client := &http.Client{Timeout: readyWait}
	var took, posts []time.Duration
	for i := range b.Orders + 1 {
		// A random pause first: the render queue polls on a fixed period,
		// and orders sent right after the previous one is ready would all
		// meet the same point of it. Real orders arrive at random.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(rand.N(orderPause)):
		}
		posted, ready, err := e.postToReady(ctx, client, fmt.Sprintf("%s-render-%d", e.run, i), b.photos.next())
		if err != nil {
			return e.withLog(err)
		}
		took, posts = append(took, ready), append(posts, posted)
	}
	first, rest := took[0], took[1:]
	slices.Sort(rest)
	slices.Sort(posts)
	fmt.Fprintf(b.out, "| %s | %d | %.0f | %.0f | %.0f | %.0f | %.1f |\n", db.name(), len(rest),
		millis(loadgen.Percentile(rest, 50)), millis(loadgen.Percentile(rest, 90)), millis(rest[len(rest)-1]), millis(first),
		millis(loadgen.Percentile(posts, 50)))
	return nil
}

// renderFlags registers the render suite's flags on fs and returns what
// reads them, with the flags both suites share, once fs is parsed.
func renderFlags(fs *flag.FlagSet) func(platen, postgresURL string) (RenderOptions, error) {
	var o RenderOptions
	var callers, photo string
	fs.IntVar(&o.Runs, "render-runs", 20, "render: renders of each format timed one at a time, after 2 unmeasured")
	fs.IntVar(&o.RSVGRuns, "rsvg-runs", 5, "render: rsvg-convert runs of each format, after 1 unmeasured")
	fs.DurationVar(&o.Window, "render-d", 10*time.Second, "render: measured duration of each throughput step, after a quarter of it unmeasured")
	fs.StringVar(&callers, "render-callers", "1,2,4", "render: concurrent callers of the throughput steps, comma-separated")
	fs.IntVar(&o.Orders, "orders", 20, "render: orders timed from POST to ready, after 1 unmeasured")
	fs.StringVar(&photo, "photo", "", "render: a JPEG file to use in place of the reference photo")
	return func(platen, postgresURL string) (RenderOptions, error) {
		o.Platen, o.PostgresURL, o.Photo = platen, postgresURL, reference.Photo
		for _, c := range commaList(callers) {
			n, err := strconv.Atoi(c)
			if err != nil {
				return o, fmt.Errorf("-render-callers: %w", err)
			}
			o.Callers = append(o.Callers, n)
		}
		if photo != "" {
			var err error
			if o.Photo, err = os.ReadFile(photo); err != nil {
				return o, fmt.Errorf("-photo: %w", err)
			}
		}
		return o, nil
	}
}
