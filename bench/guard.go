package bench

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/platen-print/platen/internal/render/reference"
)

// GuardOptions configures the guard (RunGuard): the create, read and
// render yardsticks in a few minutes, judged against the figures
// BENCHMARKS.md records.
type GuardOptions struct {
	Platen string
	// Rounds of every yardstick, interleaved; the guard judges their medians.
	Rounds int
	// Duration and Warmup of each load of the create and read yardsticks.
	Duration, Warmup time.Duration
	// Figures is the file holding the recorded figures (its "## The
	// guard" table).
	Figures string
	// Margin is how far a figure may fall under its record: 0.15 fails a
	// share that falls more than 15% below it.
	Margin float64
}

func (o GuardOptions) validate() error {
	switch {
	case o.Rounds < 1:
		return errors.New("-guard-rounds must be positive")
	case o.Duration <= 0 || o.Warmup < 0:
		return errors.New("-guard-d must be positive and -guard-warmup not negative")
	case o.Margin <= 0 || o.Margin >= 1:
		return errors.New("-guard-margin must be between 0 and 1")
	}
	return nil
}

func guardFlags(fs *flag.FlagSet) func(platen string) GuardOptions {
	var o GuardOptions
	fs.IntVar(&o.Rounds, "guard-rounds", 3, "guard: rounds of each yardstick, interleaved; their medians are judged")
	fs.DurationVar(&o.Duration, "guard-d", 5*time.Second, "guard: measured duration of each create and read load")
	fs.DurationVar(&o.Warmup, "guard-warmup", 2*time.Second, "guard: unmeasured warmup before each load")
	fs.StringVar(&o.Figures, "guard-figures", "BENCHMARKS.md", "guard: the file whose \"## The guard\" table records the figures")
	fs.Float64Var(&o.Margin, "guard-margin", 0.15, "guard: how far under its record a figure may fall")
	return func(platen string) GuardOptions {
		o.Platen = platen
		return o
	}
}

// A guarded figure: each is a share of its yardstick, higher is better.
const (
	guardCreate = "create"
	guardRead   = "read"
	guardRender = "render"
)

// guardNames are the figures in the order the guard measures and prints them.
var guardNames = []string{guardCreate, guardRead, guardRender}

// RunGuard measures, on SQLite, each round in turn: POST /api/v1/orders
// and GET …/print against the plain net/http handler (Platen's share of
// its requests a second), and 20 reference pages from POST to every file
// ready against rsvg-convert drawing the same pages (rsvg-convert's time
// over Platen's). It prints each round and the medians beside the
// recorded figures, and fails when a median falls more than Margin under
// its record.
func RunGuard(ctx context.Context, o GuardOptions, out, logw io.Writer) (err error) {
	if err := o.validate(); err != nil {
		return err
	}
	recorded, err := readGuardFigures(o.Figures)
	if err != nil {
		return err
	}
	e, err := startEnv(ctx, o.Platen, sqliteDatabase{}, logw)
	if err != nil {
		return err
	}
	defer stopKeepingErr(e, &err)
	ref, err := startBaseline(ctx, logw)
	if err != nil {
		return err
	}
	defer stopKeepingErr(ref, &err)
	for _, s := range []*env{e, ref} {
		if err := s.seed(ctx); err != nil {
			return err
		}
	}
	render, err := newRenderGuard(ctx, o.Platen, e)
	if err != nil {
		return err
	}
	defer render.close()
	fmt.Fprintf(out, "\nplaten-bench guard: SQLite, %d rounds interleaved; create and read: -c 32 for %s after %s, of the plain handler's requests/s; "+
		"render: rsvg-convert's time over Platen's for %d reference pages, POST to every file ready\n\n", o.Rounds, o.Duration, o.Warmup, render.Burst)
	fmt.Fprintln(out, "| round | create | read | render |")
	fmt.Fprintln(out, "|---|---:|---:|---:|")
	got := map[string][]float64{}
	runs := [2]string{e.run, ref.run}
	for round := 1; round <= o.Rounds; round++ {
		// Each round's orders have ids of their own (create's are the
		// run's, the worker's and a count).
		e.run, ref.run = fmt.Sprintf("%s-r%d", runs[0], round), fmt.Sprintf("%s-r%d", runs[1], round)
		for _, name := range []string{guardCreate, guardRead} {
			share, err := guardShare(ctx, o, name, e, ref, logw)
			if err != nil {
				return err
			}
			got[name] = append(got[name], share)
		}
		share, err := render.share(ctx)
		if err != nil {
			return e.withLog(err)
		}
		got[guardRender] = append(got[guardRender], share)
		fmt.Fprintf(out, "| %d | %.2f | %.2f | %.2f |\n", round, got[guardCreate][round-1], got[guardRead][round-1], share)
	}
	return judgeGuard(out, got, recorded, o.Margin)
}

// guardShare is Platen's share of the baseline's requests a second for one
// scenario, measured baseline first.
func guardShare(ctx context.Context, o GuardOptions, name string, e, ref *env, logw io.Writer) (float64, error) {
	scenario := findScenario(map[string]string{guardCreate: "create", guardRead: "print"}[name])
	if err := seedScenario(ctx, scenario, e, ref); err != nil {
		return 0, err
	}
	load := Options{Concurrency: 32, Duration: o.Duration, Warmup: o.Warmup}
	base, err := measure(ctx, load, scenario, ref, "baseline", logw)
	if err != nil {
		return 0, err
	}
	platen, err := measure(ctx, load, scenario, e, "sqlite", logw)
	if err != nil {
		return 0, err
	}
	if base.RPS == 0 || base.Errors > 0 || platen.Errors > 0 {
		return 0, fmt.Errorf("%s: %d baseline and %d Platen errors (%s%s)", name, base.Errors, platen.Errors, base.FirstError, platen.FirstError)
	}
	return platen.RPS / base.RPS, nil
}

// renderGuard times Burst reference pages through Platen and through
// rsvg-convert, as the latency suite's "against rsvg-convert" step does.
type renderGuard struct {
	*latencyBench
	rs *rsvg
}

func newRenderGuard(ctx context.Context, platen string, e *env) (*renderGuard, error) {
	rs, err := newRSVG(reference.Photo)
	if err != nil {
		return nil, err
	}
	if rs == nil {
		return nil, errors.New("the guard needs rsvg-convert (apt-get install librsvg2-bin fonts-go)")
	}
	b := &latencyBench{LatencyOptions: LatencyOptions{Platen: platen, Clients: 8, Burst: 20}, e: e, db: "sqlite",
		out: io.Discard, logw: io.Discard, config: latencyConfig(), client: &http.Client{Timeout: readyWait}}
	if b.operator, err = e.staffOperator(ctx, platen); err != nil {
		rs.close()
		return nil, err
	}
	return &renderGuard{latencyBench: b, rs: rs}, nil
}

func (g *renderGuard) close() { g.rs.close() }

// share is rsvg-convert's time for the pages over Platen's.
func (g *renderGuard) share(ctx context.Context) (float64, error) {
	platen, err := g.postAllUntilReady(ctx, "guard-"+strconv.FormatInt(time.Now().UnixNano(), 36), g.Burst)
	if err != nil {
		return 0, err
	}
	yardstick, err := g.rs.many(ctx, "pdf", g.Burst, rsvgAtOnce)
	if err != nil {
		return 0, err
	}
	return yardstick.Seconds() / platen.Seconds(), nil
}

// judgeGuard prints each figure's median beside its record and fails for
// each that fell more than margin under it.
func judgeGuard(out io.Writer, got map[string][]float64, recorded map[string]float64, margin float64) error {
	fmt.Fprintf(out, "\n| figure | median | recorded | floor (%.0f%% under) | |\n|---|---:|---:|---:|---|\n", 100*margin)
	var failed []error
	for _, name := range guardNames {
		median := medianOf(got[name])
		floor := recorded[name] * (1 - margin)
		verdict := "ok"
		if median < floor {
			verdict = "**fell**"
			failed = append(failed, fmt.Errorf("%s: %.2f, under %.2f (%.0f%% under the recorded %.2f)", name, median, floor, 100*margin, recorded[name]))
		}
		fmt.Fprintf(out, "| %s | %.2f | %.2f | %.2f | %s |\n", name, median, recorded[name], floor, verdict)
	}
	return errors.Join(failed...)
}

// readGuardFigures reads the recorded figures: the rows of the first
// table under the heading "## The guard" of path, whose first cell names
// the figure (create, read, render) and whose second holds it.
func readGuardFigures(path string) (map[string]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("the guard's figures: %w", err)
	}
	defer f.Close()
	figures := map[string]float64{}
	in := false
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == "## The guard"
		case in && strings.HasPrefix(line, "|"):
			cells := strings.Split(strings.Trim(line, "|"), "|")
			if len(cells) < 2 {
				continue
			}
			name := strings.Trim(strings.TrimSpace(cells[0]), "`")
			if !slices.Contains(guardNames, name) {
				continue
			}
			v, err := strconv.ParseFloat(strings.TrimSpace(cells[1]), 64)
			if err != nil {
				return nil, fmt.Errorf("%s: the guard's %s figure %q: %w", path, name, cells[1], err)
			}
			figures[name] = v
		}
	}
	for _, name := range guardNames {
		if _, ok := figures[name]; !ok {
			return nil, fmt.Errorf("%s: no %s figure in the table under \"## The guard\"", path, name)
		}
	}
	return figures, nil
}

// medianOf is the median of values (the mean of the middle two when even).
func medianOf(values []float64) float64 {
	sorted := slices.Sorted(slices.Values(values))
	n := len(sorted)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}
