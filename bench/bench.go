// Package bench runs Platen's end-to-end benchmarks, the ones `make bench`
// (bench/cmd/platen-bench) reports: the HTTP suite, the rendering suite, the
// batch suite, the webhooks suite and the hostile-input suite.
//
// HTTP: for each database (the embedded SQLite, and PostgreSQL when a URL is
// given) it bootstraps a token into a fresh data directory with the platen
// binary, starts `platen serve` on free ports, seeds one order, drives each
// scenario with a closed-loop load generator (bench/loadgen), stops
// the server with SIGTERM and prints one markdown table row per scenario.
//
// Rendering (RunRender): the reference page of internal/render/reference,
// its photo served on loopback, rendered by `platen render` processes over
// gRPC (time, peak memory, throughput) and through `platen serve` from POST
// to ready; rsvg-convert on the same page as SVG beside it when installed.
//
// Batches (RunBatch): pdfcpu laying out 200 copies of the reference page,
// rendered once by platen render, on SRA3 sheets in a 2 × 4 grid, taking
// turns with Platen batching 200 items of the same page on a print template
// of that grid, from POST /api/v1/batch-orders to Ready.
//
// Webhooks (RunWebhooks): Family B orders sent at a steady rate, and the
// time from each print turning ready (its shop_prints.updated_at, read from
// the database after the run) to its print_files.ready webhook arriving at
// a receiver in this process.
package bench

import (
	"context"
	"debug/buildinfo"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/platen-print/platen/bench/loadgen"
)

// Options configures a benchmark run.
type Options struct {
	// Platen is the path of the platen binary to benchmark.
	Platen string
	// Concurrency is the number of load-generator workers.
	Concurrency int
	// Duration is how long each scenario is measured, after Warmup.
	Duration time.Duration
	Warmup   time.Duration
	// Scenarios are the names of the scenarios to run, in order.
	Scenarios []string
	// PostgresURL, when set, also runs every scenario on PostgreSQL, in a
	// schema created for the run and dropped after it.
	PostgresURL string
	// HTTPClient sends the load through Go's http.Client instead of the
	// leaner raw connections.
	HTTPClient bool
	// NoBaseline skips the plain net/http handler that SQLite figures are
	// compared with.
	NoBaseline bool
	// ProfileDir, when set, receives a CPU profile of platen serve over
	// each scenario's measured time.
	ProfileDir string
}

// Main parses args as platen-bench's flags, runs the benchmarks and
// returns the exit code: 0, 1 when a benchmark failed, 2 for bad flags. The
// table goes to stdout and progress to stderr.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("platen-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o Options
	var scenarios, suites string
	fs.StringVar(&suites, "suites", "http,render,batch,webhooks,hostile,prints,latency", "comma-separated suites: http (the scenarios), render (time, memory, throughput of rendering; POST to ready), "+
		"batch (200 items on SRA3 sheets: pdfcpu grid against Platen's POST to Ready), "+
		"webhooks (Family B orders at a steady rate: print ready to webhook arrived), hostile (each attack: what another team's order, /healthz and memory pay), "+
		"prints (the operator's prints list over 100,000 seeded prints: every filter and search), "+
		"latency (an order to a ready file and its webhook, at idle and under load); "+
		"scaling (not run unless named, PostgreSQL only: render processes and a serve pinned to a core each, the pipeline's CPU per order, a capacity table); "+
		"soak (not run unless named: a mixed load at half the measured capacity for -soak-d, RSS, goroutines, open files and p99 sampled and charted); "+
		"guard (not run unless named: the create, read and render yardsticks in a few minutes, failing when one falls more than -guard-margin under BENCHMARKS.md's figure)")
	fs.StringVar(&o.Platen, "platen", "bin/platen", "path of the platen binary to benchmark")
	fs.IntVar(&o.Concurrency, "c", 32, "concurrent connections (closed loop: one request in flight each)")
	fs.DurationVar(&o.Duration, "d", 15*time.Second, "measured duration of each scenario")
	fs.DurationVar(&o.Warmup, "warmup", 3*time.Second, "unmeasured warmup before each scenario")
	fs.StringVar(&scenarios, "scenarios", "create,print,shop-get", "comma-separated scenarios: "+scenarioNames())
	fs.StringVar(&o.PostgresURL, "postgres", "", "postgres://… URL: also benchmark PostgreSQL (in a fresh schema)")
	var baselineAddr, baselineDir string
	fs.StringVar(&baselineAddr, "serve-baseline", "", "internal: serve the plain net/http baseline on this address")
	fs.StringVar(&baselineDir, "baseline-dir", "", "internal: the baseline's data directory")
	fs.BoolVar(&o.NoBaseline, "no-baseline", false, "do not measure the plain net/http + SQLite baseline beside SQLite")
	fs.BoolVar(&o.HTTPClient, "http-client", false, "send through net/http's client (more load-generator CPU) instead of raw connections")
	fs.StringVar(&o.ProfileDir, "profile-dir", "", "http, webhooks, latency, scaling: write a CPU profile of platen serve over each measured window into this directory")
	renderOptions := renderFlags(fs)
	batchOptions := batchFlags(fs)
	hookOptions := hookFlags(fs)
	hostile := hostileFlags(fs)
	printsOptions := printsFlags(fs)
	latencyOptions := latencyFlags(fs)
	soakOptions := soakFlags(fs)
	scalingOptions := scalingFlags(fs)
	guardOptions := guardFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: platen-bench [flags]\n\nBenchmarks platen serve over HTTP on SQLite (and PostgreSQL with -postgres),\n"+
			"then rendering (-suites render): the reference page through platen render and platen serve,\n"+
			"then batches (-suites batch): 200 reference pages on SRA3 sheets, pdfcpu grid against Platen's batch orders,\n"+
			"then webhooks (-suites webhooks): print ready to webhook arrived under a steady load of Family B orders.\n\nScenarios of the http suite:\n")
		for _, s := range allScenarios {
			fmt.Fprintf(stderr, "  %-8s %s\n", s.name, s.description)
		}
		fmt.Fprintf(stderr, "\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "platen-bench: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if baselineAddr != "" {
		return serveBaseline(ctx, baselineAddr, baselineDir, stderr)
	}
	o.Scenarios = commaList(scenarios)
	run := commaList(suites)
	ro, err := renderOptions(o.Platen, o.PostgresURL)
	var ho HookOptions
	if err == nil {
		ho, err = hookOptions(o.Platen, o.PostgresURL, o.ProfileDir)
	}
	xo := hostile(o.Platen, o.PostgresURL)
	xo.Photo = ro.Photo
	bo := batchOptions(o.Platen, o.PostgresURL, ro.Photo)
	po := printsOptions(o.Platen, o.PostgresURL)
	lo := latencyOptions(o.Platen, o.PostgresURL, o.ProfileDir)
	so := soakOptions(o.Platen, o.PostgresURL)
	sco := scalingOptions(o.Platen, o.PostgresURL, o.ProfileDir)
	gop := guardOptions(o.Platen)
	if err == nil {
		err = checkSuites(run, o, ro, bo, ho, xo, po, lo)
	}
	if err == nil && slices.Contains(run, "soak") {
		err = so.validate()
	}
	if err == nil && slices.Contains(run, "scaling") {
		err = sco.validate()
	}
	if err == nil && slices.Contains(run, "guard") {
		err = gop.validate()
	}
	if err != nil {
		fmt.Fprintf(stderr, "platen-bench: %v\n", err)
		return 2
	}
	if slices.Contains(run, "http") {
		err = Run(ctx, o, stdout, stderr)
	}
	if slices.Contains(run, "render") && ctx.Err() == nil {
		err = errors.Join(err, RunRender(ctx, ro, stdout, stderr))
	}
	if slices.Contains(run, "batch") && ctx.Err() == nil {
		err = errors.Join(err, RunBatch(ctx, bo, stdout, stderr))
	}
	if slices.Contains(run, "webhooks") && ctx.Err() == nil {
		err = errors.Join(err, RunWebhooks(ctx, ho, stdout, stderr))
	}
	if slices.Contains(run, "hostile") && ctx.Err() == nil {
		err = errors.Join(err, RunHostile(ctx, xo, stdout, stderr))
	}
	if slices.Contains(run, "prints") && ctx.Err() == nil {
		err = errors.Join(err, RunPrints(ctx, po, stdout, stderr))
	}
	if slices.Contains(run, "latency") && ctx.Err() == nil {
		err = errors.Join(err, RunLatency(ctx, lo, stdout, stderr))
	}
	if slices.Contains(run, "scaling") && ctx.Err() == nil {
		err = errors.Join(err, RunScaling(ctx, sco, stdout, stderr))
	}
	if slices.Contains(run, "soak") && ctx.Err() == nil {
		err = errors.Join(err, RunSoak(ctx, so, stdout, stderr))
	}
	if slices.Contains(run, "guard") && ctx.Err() == nil {
		err = errors.Join(err, RunGuard(ctx, gop, stdout, stderr))
	}
	if err != nil {
		fmt.Fprintf(stderr, "platen-bench: %v\n", err)
		return 1
	}
	return 0
}

// commaList splits a comma-separated flag, dropping blanks and repeats.
func commaList(s string) []string {
	var list []string
	for v := range strings.SplitSeq(s, ",") {
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}

// checkSuites checks the suites asked for and their options before any
// runs, so that a typo fails at once rather than after the first suite.
func checkSuites(suites []string, o Options, ro RenderOptions, bo BatchOptions, ho HookOptions, xo HostileOptions, po PrintsOptions, lo LatencyOptions) error {
	if len(suites) == 0 {
		return errors.New("no -suites")
	}
	for _, s := range suites {
		var err error
		switch s {
		case "http":
			err = o.validate()
		case "render":
			err = ro.validate()
		case "batch":
			err = bo.validate()
		case "webhooks":
			err = ho.validate()
		case "hostile":
			err = xo.validate()
		case "prints":
			err = po.validate()
		case "latency":
			err = lo.validate()
		case "soak", "scaling", "guard": // checked by the caller, with their options
		default:
			err = fmt.Errorf("unknown suite %q (known: http, render, batch, webhooks, hostile, prints, latency, scaling, soak, guard)", s)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (o Options) validate() error {
	switch {
	case o.Platen == "":
		return errors.New("-platen is required")
	case o.Concurrency <= 0:
		return errors.New("-c must be positive")
	case o.Duration <= 0:
		return errors.New("-d must be positive")
	case o.Warmup < 0:
		return errors.New("-warmup must not be negative")
	case len(o.Scenarios) == 0:
		return errors.New("no -scenarios")
	}
	for _, name := range o.Scenarios {
		if findScenario(name) == nil {
			return fmt.Errorf("unknown scenario %q (known: %s)", name, scenarioNames())
		}
	}
	return nil
}

// row is one line of the results table.
type row struct {
	database, scenario string
	concurrency        int
	result             loadgen.Result
	// baseline is the plain handler's result for the same scenario, when
	// measured.
	baseline *loadgen.Result
}

// builtWith is the Go version the platen binary was built with, which
// every suite reports beside its figures.
func builtWith(platen string) (string, error) {
	info, err := buildinfo.ReadFile(platen)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w (make build builds it)", platen, err)
	}
	return info.GoVersion, nil
}

// Run runs the benchmarks o describes, writing the markdown table to out as
// rows complete and progress to logw. A database that fails to set up is
// reported and the next one still runs; the error then says which failed.
func Run(ctx context.Context, o Options, out, logw io.Writer) error {
	if err := o.validate(); err != nil {
		return err
	}
	goVersion, err := builtWith(o.Platen)
	if err != nil {
		return err
	}

	fmt.Fprintf(out, "platen-bench: %s %s/%s, NumCPU %d, GOMAXPROCS %d; platen built with %s; -c %d -d %s -warmup %s\n\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0),
		goVersion, o.Concurrency, o.Duration, o.Warmup)
	fmt.Fprintln(out, "| server | scenario | concurrency | requests/s | p50 ms | p99 ms | errors | of baseline |")
	fmt.Fprintln(out, "|---|---|---:|---:|---:|---:|---:|---:|")

	databases := []database{sqliteDatabase{}}
	if o.PostgresURL != "" {
		databases = append(databases, postgresDatabase{url: o.PostgresURL})
	}
	var rows []row
	var failed []error
	for _, db := range databases {
		if ctx.Err() != nil {
			break
		}
		err := runDatabase(ctx, o, db, logw, func(r row) {
			rows = append(rows, r)
			writeRow(out, r)
		})
		if err != nil {
			fmt.Fprintf(logw, "platen-bench: %s: %v\n", db.name(), err)
			failed = append(failed, fmt.Errorf("%s: %w", db.name(), err))
		}
	}

	notes := 0
	for _, r := range rows {
		if r.result.Errors == 0 {
			continue
		}
		if notes == 0 {
			fmt.Fprintln(out)
		}
		notes++
		status := "transport error"
		if r.result.FirstStatus != 0 {
			status = fmt.Sprintf("HTTP %d", r.result.FirstStatus)
		}
		fmt.Fprintf(out, "first error, %s %s (%s): %s\n", r.database, r.scenario, status, r.result.FirstError)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.Join(failed...)
}

func writeRow(out io.Writer, r row) {
	res := r.result
	share := ""
	if r.baseline != nil && r.baseline.RPS > 0 {
		share = fmt.Sprintf("%.0f%%", 100*res.RPS/r.baseline.RPS)
	}
	fmt.Fprintf(out, "| %s | %s | %d | %.0f | %.2f | %.2f | %d | %s |\n",
		r.database, r.scenario, r.concurrency, res.RPS, millis(res.P50), millis(res.P99), res.Errors, share)
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// runDatabase starts a server on db, seeds it and runs every scenario,
// calling emit with each result.
func runDatabase(ctx context.Context, o Options, db database, logw io.Writer, emit func(row)) (err error) {
	fmt.Fprintf(logw, "platen-bench: %s: starting platen serve\n", db.name())
	prof, err := newProfiler(o.ProfileDir)
	if err != nil {
		return err
	}
	e, err := startEnv(ctx, o.Platen, db, logw, prof.args()...)
	if err != nil {
		return err
	}
	defer stopKeepingErr(e, &err)
	if err := e.seed(ctx); err != nil {
		return err
	}
	var ref *env
	if _, isSQLite := db.(sqliteDatabase); isSQLite && !o.NoBaseline {
		if ref, err = startBaseline(ctx, logw); err != nil {
			return err
		}
		defer stopKeepingErr(ref, &err)
		if err := ref.seed(ctx); err != nil {
			return err
		}
	}
	for _, name := range o.Scenarios {
		s := findScenario(name)
		if err := seedScenario(ctx, s, e, ref); err != nil {
			return err
		}
		var base *loadgen.Result
		if ref != nil {
			res, err := measure(ctx, o, s, ref, "baseline", logw)
			if err != nil {
				return err
			}
			emit(row{database: "baseline: net/http + SQLite", scenario: name, concurrency: o.Concurrency, result: res})
			base = &res
		}
		profDone := prof.during(ctx, "http-"+db.name()+"-"+name+"-"+e.run, time.Now().Add(o.Warmup), o.Duration, logw)
		res, err := measure(ctx, o, s, e, db.name(), logw)
		<-profDone
		if err != nil {
			return err
		}
		emit(row{database: "platen: " + db.name(), scenario: name, concurrency: o.Concurrency, result: res, baseline: base})
	}
	return nil
}

// seedScenario runs s's own seeding on the server and on the baseline (when
// running).
func seedScenario(ctx context.Context, s *scenario, e, ref *env) error {
	if s.seed == nil {
		return nil
	}
	if ref != nil {
		if err := s.seed(ctx, ref); err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
	}
	return s.seed(ctx, e)
}

// stopKeepingErr stops e, reporting its failure in *err unless *err already
// holds an earlier one.
func stopKeepingErr(e *env, err *error) {
	if stopErr := e.stop(); stopErr != nil && *err == nil {
		*err = stopErr
	}
}

// measure runs scenario s against the server of e.
func measure(ctx context.Context, o Options, s *scenario, e *env, label string, logw io.Writer) (loadgen.Result, error) {
	fmt.Fprintf(logw, "platen-bench: %s: %s: %s warmup, %s measured, %d workers\n",
		label, s.name, o.Warmup, o.Duration, o.Concurrency)
	res, err := loadgen.Run(ctx, loadgen.Config{
		Concurrency: o.Concurrency,
		Duration:    o.Duration,
		Warmup:      o.Warmup,
		NewRequest:  s.newRequest(e),
		Raw:         !o.HTTPClient,
	})
	if err != nil {
		return res, fmt.Errorf("%s %s: %w", label, s.name, err)
	}
	return res, nil
}
