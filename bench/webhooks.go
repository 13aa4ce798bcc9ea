package bench

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/platen-print/platen/bench/loadgen"
	"github.com/platen-print/platen/internal/procstat"
)

// HookOptions configures the webhooks suite (issue 5): Family B orders sent
// at a steady rate to platen serve, and the time from each print turning
// ready to its print_files.ready webhook arriving at a local receiver.
type HookOptions struct {
	// Platen is the path of the platen binary to benchmark.
	Platen string
	// PostgresURL, when set, also runs every step on PostgreSQL.
	PostgresURL string
	// Rates are the steps' offered loads in prints per second; Lines the
	// lines (prints) of each order, so orders go at rate/Lines a second.
	Rates []float64
	Lines int
	// Workers are the --render-workers of the steps (0: serve's default,
	// the CPU count); every rate runs with every value.
	Workers []int
	// Warmup is sent before the measured Window; Grace is the longest wait
	// after it for the webhooks still owed.
	Warmup, Window, Grace time.Duration
	// Repeat runs the whole list of steps this many times, interleaved, as
	// the host's speed drifts.
	Repeat int
	// ProfileDir, when set, receives a CPU profile of the server over each
	// step's window.
	ProfileDir string
}

func (o HookOptions) validate() error {
	switch {
	case o.Platen == "":
		return errors.New("-platen is required")
	case len(o.Rates) == 0 || slices.Min(o.Rates) <= 0:
		return errors.New("-hook-rates must be positive numbers")
	case o.Lines <= 0 || o.Lines > 500:
		return errors.New("-hook-lines must be 1 to 500")
	case len(o.Workers) == 0 || slices.Min(o.Workers) < 0:
		return errors.New("-hook-workers must be numbers from 0")
	case o.Warmup < 0 || o.Window <= 0 || o.Grace < 0:
		return errors.New("-hook-d must be positive, -hook-warmup and -hook-grace not negative")
	case o.Repeat <= 0:
		return errors.New("-hook-repeat must be positive")
	}
	return nil
}

// hookFlags registers the webhooks suite's flags on fs and returns what
// reads them, with the flags the suites share, once fs is parsed.
func hookFlags(fs *flag.FlagSet) func(platen, postgresURL, profileDir string) (HookOptions, error) {
	var o HookOptions
	var rates, workers string
	fs.StringVar(&rates, "hook-rates", "100,200", "webhooks: offered loads, prints per second, comma-separated")
	fs.IntVar(&o.Lines, "hook-lines", 10, "webhooks: lines (prints) per shop order")
	fs.StringVar(&workers, "hook-workers", "0", "webhooks: --render-workers of platen serve, comma-separated (0: its default, the CPU count)")
	fs.DurationVar(&o.Warmup, "hook-warmup", 5*time.Second, "webhooks: load sent before the measured window")
	fs.DurationVar(&o.Window, "hook-d", 20*time.Second, "webhooks: measured window of each step")
	fs.DurationVar(&o.Grace, "hook-grace", 5*time.Second, "webhooks: longest wait after the window for webhooks still owed")
	fs.IntVar(&o.Repeat, "hook-repeat", 1, "webhooks: runs of the whole list of steps, interleaved")
	return func(platen, postgresURL, profileDir string) (HookOptions, error) {
		o.Platen, o.PostgresURL, o.ProfileDir = platen, postgresURL, profileDir
		for _, r := range commaList(rates) {
			v, err := strconv.ParseFloat(r, 64)
			if err != nil {
				return o, fmt.Errorf("-hook-rates: %w", err)
			}
			o.Rates = append(o.Rates, v)
		}
		for _, w := range commaList(workers) {
			n, err := strconv.Atoi(w)
			if err != nil {
				return o, fmt.Errorf("-hook-workers: %w", err)
			}
			o.Workers = append(o.Workers, n)
		}
		return o, nil
	}
}

// hookStep is one step: a fresh server on db with workers render workers,
// offered rate prints a second.
type hookStep struct {
	db      database
	workers int
	rate    float64
}

func (s hookStep) String() string {
	return fmt.Sprintf("%s, %s render workers, %g prints/s", s.db.name(), workersLabel(s.workers), s.rate)
}

func workersLabel(n int) string {
	if n == 0 {
		return fmt.Sprintf("default (%d)", runtime.NumCPU())
	}
	return strconv.Itoa(n)
}

// hookResult is a step's outcome.
type hookResult struct {
	step  hookStep
	stats hookStats
	// orders is what the sender saw; serverCPU and selfCPU are cores used
	// over the window by platen serve and by this process.
	orders             sendResult
	serverCPU, selfCPU float64
	// conns is how many connections Platen opened to the receiver.
	conns int64
}

// RunWebhooks runs the webhooks suite, writing markdown tables to out and
// progress to logw. A failing step is reported and the next one still runs.
func RunWebhooks(ctx context.Context, o HookOptions, out, logw io.Writer) error {
	if err := o.validate(); err != nil {
		return err
	}
	goVersion, err := builtWith(o.Platen)
	if err != nil {
		return err
	}
	databases := []database{sqliteDatabase{}}
	if o.PostgresURL != "" {
		databases = append(databases, postgresDatabase{url: o.PostgresURL})
	}
	var steps []hookStep
	for _, db := range databases {
		for _, w := range o.Workers {
			for _, r := range o.Rates {
				steps = append(steps, hookStep{db: db, workers: w, rate: r})
			}
		}
	}
	fmt.Fprintf(out, "\nplaten-bench webhooks: %s %s/%s, NumCPU %d; platen built with %s; %d-line orders of one rectangle; "+
		"%s warmup, %s measured, %s grace; %d run(s)\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), goVersion, o.Lines,
		o.Warmup, o.Window, o.Grace, o.Repeat)
	var results []hookResult
	var failed []error
	for run := range o.Repeat {
		for _, s := range steps {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			fmt.Fprintf(logw, "platen-bench: webhooks run %d/%d: %s\n", run+1, o.Repeat, s)
			r, err := runHookStep(ctx, o, s, logw)
			if err != nil {
				fmt.Fprintf(logw, "platen-bench: webhooks: %s: %v\n", s, err)
				failed = append(failed, fmt.Errorf("%s: %w", s, err))
				continue
			}
			logHookResult(logw, r)
			results = append(results, r)
		}
	}
	writeHookTables(out, results)
	return errors.Join(failed...)
}

// runHookStep starts a server and a receiver, sends the load, waits for
// the webhooks owed, stops the server and reads the times it recorded.
func runHookStep(ctx context.Context, o HookOptions, s hookStep, logw io.Writer) (r hookResult, err error) {
	r.step = s
	recv, err := startHookReceiver()
	if err != nil {
		return r, err
	}
	defer recv.close()
	extra := []string{"--allow-private-network"}
	if s.workers > 0 {
		extra = append(extra, "--render-workers", strconv.Itoa(s.workers))
	}
	prof, err := newProfiler(o.ProfileDir)
	if err != nil {
		return r, err
	}
	e, err := startEnv(ctx, o.Platen, s.db, logw, append(extra, prof.args()...)...)
	if err != nil {
		return r, err
	}
	defer stopKeepingErr(e, &err)
	if err := prepareHooks(ctx, e, recv.url); err != nil {
		return r, e.withLog(err)
	}

	start := time.Now()
	from := start.Add(o.Warmup)
	to := from.Add(o.Window)
	sent := make(chan sendResult, 1)
	go func() { sent <- sendOrders(ctx, e, s.rate/float64(o.Lines), o.Lines, start, from, to) }()
	profDone := prof.during(ctx, fmt.Sprintf("webhooks-%s-w%d-%g-%s", s.db.name(), s.workers, s.rate, e.run), from, o.Window, logw)
	if r.serverCPU, r.selfCPU, err = cpuOver(ctx, e.cmd.Process.Pid, from, to); err != nil {
		return r, err
	}
	r.orders = <-sent
	<-profDone
	if ctx.Err() != nil {
		return r, ctx.Err()
	}
	awaitHooks(ctx, recv, r.orders.prints, o.Grace)
	// Stopped before reading, so that every row is final; the data stays
	// until stopKeepingErr.
	if err := e.halt(); err != nil {
		return r, err
	}
	prints, deliveries, err := readHookRows(ctx, e)
	if err != nil {
		return r, err
	}
	arrivals, bad := recv.snapshot()
	r.stats = analyzeHooks(prints, deliveries, arrivals, bad, from, to)
	r.conns = recv.conns.Load()
	return r, nil
}

// prepareHooks registers the design and points the store's webhook at the
// receiver.
func prepareHooks(ctx context.Context, e *env, hookURL string) error {
	client := &http.Client{Timeout: 30 * time.Second}
	if err := e.registerDesign(ctx, client); err != nil {
		return fmt.Errorf("registering the design: %w", err)
	}
	body, err := json.Marshal(map[string]string{"url": hookURL})
	if err != nil {
		return err
	}
	var endpoint struct {
		Secret string `json:"secret"`
	}
	if err := e.call(ctx, client, http.MethodPut, "/api/v1/stores/"+e.storeID+"/webhook", body, &endpoint); err != nil {
		return fmt.Errorf("setting the webhook: %w", err)
	}
	if endpoint.Secret == "" {
		return errors.New("setting the webhook: no secret in the answer")
	}
	return nil
}

// cpuOver returns the cores used by process pid and by this one between
// from and to, waiting for both.
func cpuOver(ctx context.Context, pid int, from, to time.Time) (server, self float64, err error) {
	if err := sleepUntil(ctx, from); err != nil {
		return 0, 0, err
	}
	s0, err := treeCPUTime(pid)
	if err != nil {
		return 0, 0, err
	}
	m0, err := procstat.CPUTime(os.Getpid())
	if err != nil {
		return 0, 0, err
	}
	if err := sleepUntil(ctx, to); err != nil {
		return 0, 0, err
	}
	s1, err := treeCPUTime(pid)
	if err != nil {
		return 0, 0, err
	}
	m1, err := procstat.CPUTime(os.Getpid())
	window := to.Sub(from).Seconds()
	return (s1 - s0).Seconds() / window, (m1 - m0).Seconds() / window, err
}

// awaitHooks waits until the receiver has heard of every print ordered, or
// grace has passed: renders may lag behind, and only the webhooks of
// prints made ready inside the window are counted.
func awaitHooks(ctx context.Context, recv *hookReceiver, prints int, grace time.Duration) {
	deadline := time.Now().Add(grace)
	for recv.prints() < prints && time.Now().Before(deadline) {
		if sleepUntil(ctx, time.Now().Add(50*time.Millisecond)) != nil {
			return
		}
	}
}

func sleepUntil(ctx context.Context, t time.Time) error {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

func logHookResult(logw io.Writer, r hookResult) {
	st := &r.stats
	fmt.Fprintf(logw, "platen-bench: webhooks: %s: ready %.1f/s, delivered %d/%d, p50 %.0f ms, p99 %.0f ms, backlog %d, server %.2f cores; "+
		"updated_at → delivery row in the same transaction: p50 %.2f ms, p99 %.2f ms\n",
		r.step, st.readyRate(), st.delivered, st.expected, ms(st.latency, 50), ms(st.latency, 99), st.backlog, r.serverCPU,
		ms(st.inTx, 50), ms(st.inTx, 99))
}

// writeHookTables writes the steps' results: the latency against the
// issue's targets, then where the time went and what the load cost.
func writeHookTables(out io.Writer, results []hookResult) {
	fmt.Fprintf(out, "\n### From a print turning ready to its webhook arriving\n\n")
	fmt.Fprintln(out, "| database | render workers | offered prints/s | ready prints/s | delivered / expected | repeats | p50 ms | p90 ms | p99 ms | max ms |")
	fmt.Fprintln(out, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range results {
		st := &r.stats
		fmt.Fprintf(out, "| %s | %s | %g | %.1f | %d / %d | %d | %.0f | %.0f | %.0f | %.0f |\n",
			r.step.db.name(), workersLabel(r.step.workers), r.step.rate, st.readyRate(), st.delivered, st.expected,
			st.repeats+st.multiNotified, ms(st.latency, 50), ms(st.latency, 90), ms(st.latency, 99), ms(st.latency, 100))
	}
	fmt.Fprintf(out, "\n### Where the time went, and the load\n\n")
	fmt.Fprintln(out, "| database | render workers | offered prints/s | ready → attempt p50 / p99 ms | attempt → arrival p50 / p99 ms | "+
		"order → ready p50 / p99 ms | ordered prints/s | not ready at the end | platen serve cores | bench cores | order POST p50 / p99 ms | POST errors | "+
		"receiver connections / webhooks |")
	fmt.Fprintln(out, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range results {
		st := &r.stats
		fmt.Fprintf(out, "| %s | %s | %g | %.0f / %.0f | %.1f / %.1f | %.0f / %.0f | %.1f | %d | %.2f | %.2f | %.1f / %.1f | %d | %d / %d |\n",
			r.step.db.name(), workersLabel(r.step.workers), r.step.rate, ms(st.wait, 50), ms(st.wait, 99),
			ms(st.post, 50), ms(st.post, 99), ms(st.render, 50), ms(st.render, 99), st.createdRate(), st.backlog,
			r.serverCPU, r.selfCPU, ms(r.orders.latency, 50), ms(r.orders.latency, 99), r.orders.errors, r.conns, st.arrivals)
	}
	for _, r := range results {
		if r.orders.firstErr != "" {
			fmt.Fprintf(out, "\nfirst order error, %s: %s\n", r.step, r.orders.firstErr)
		}
		if r.stats.bad > 0 {
			fmt.Fprintf(out, "\n%s: %d requests to the receiver were no print_files.ready delivery\n", r.step, r.stats.bad)
		}
	}
}

// ms is the p-th percentile of sorted in milliseconds.
func ms(sorted []time.Duration, p float64) float64 { return millis(loadgen.Percentile(sorted, p)) }
