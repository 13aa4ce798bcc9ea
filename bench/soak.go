package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/platen-print/platen/bench/loadgen"
	"github.com/platen-print/platen/internal/procstat"
)

// SoakOptions configure the soak suite: a mixed load at half the measured
// capacity for a long time, with the server's memory, goroutines, open
// files and latency sampled as it goes.
type SoakOptions struct {
	Platen, PostgresURL string
	// Duration is how long the load runs; Sample how often it is
	// measured; Warmup the start left out of the growth verdict.
	Duration, Sample, Warmup time.Duration
	// Rate is orders a second; 0 is half the capacity, measured first by
	// Clients posting CapacityOrders orders until all are ready.
	Rate           float64
	Clients        int
	CapacityOrders int
	// OutDir receives each database's samples (CSV) and charts (PNG).
	OutDir string
}

// soakGrowthLimit is the growth after warm-up the soak allows: the last
// minutes' mean over the first minutes' after warm-up.
const soakGrowthLimit = 0.10

func soakFlags(fs *flag.FlagSet) func(platen, postgresURL string) SoakOptions {
	var o SoakOptions
	fs.DurationVar(&o.Duration, "soak-d", 30*time.Minute, "soak: how long the mixed load runs on each database")
	fs.DurationVar(&o.Sample, "soak-sample", 10*time.Second, "soak: how often RSS, goroutines, open files and p99 are sampled")
	fs.DurationVar(&o.Warmup, "soak-warmup", 5*time.Minute, "soak: the start left out of the growth verdict")
	fs.Float64Var(&o.Rate, "soak-rate", 0, "soak: orders a second (0: half the capacity measured first)")
	fs.IntVar(&o.Clients, "soak-clients", 8, "soak: clients of the capacity measurement")
	fs.IntVar(&o.CapacityOrders, "soak-capacity-orders", 600, "soak: orders of the capacity measurement")
	fs.StringVar(&o.OutDir, "soak-out", "bench-soak", "soak: directory for the samples (CSV) and charts (PNG)")
	return func(platen, postgresURL string) SoakOptions {
		o.Platen, o.PostgresURL = platen, postgresURL
		return o
	}
}

func (o SoakOptions) validate() error {
	switch {
	case o.Duration <= 0 || o.Sample <= 0 || o.Warmup < 0:
		return errors.New("-soak-d and -soak-sample must be positive, -soak-warmup not negative")
	case o.Warmup+4*o.Sample > o.Duration:
		return errors.New("-soak-d must leave at least four samples after -soak-warmup")
	case o.Rate < 0 || o.Clients < 1 || o.CapacityOrders < o.Clients:
		return errors.New("-soak-rate must not be negative, -soak-clients positive, -soak-capacity-orders at least -soak-clients")
	}
	return nil
}

// RunSoak runs the soak on SQLite, and on PostgreSQL when PostgresURL is
// set, writing a table to out and the samples and charts to OutDir.
func RunSoak(ctx context.Context, o SoakOptions, out, logw io.Writer) error {
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(out, "\n| database | orders/s | samples | metric | after warm-up | at the end | growth | verdict |\n|---|---:|---:|---|---:|---:|---:|---|\n")
	dbs := []database{sqliteDatabase{}}
	if o.PostgresURL != "" {
		dbs = append(dbs, postgresDatabase{url: o.PostgresURL})
	}
	var errs error
	for _, db := range dbs {
		if ctx.Err() != nil {
			break
		}
		errs = errors.Join(errs, soakOn(ctx, o, db, out, logw))
	}
	return errs
}

// soakSample is one sample of the server under the soak's load.
type soakSample struct {
	At      time.Duration
	RSS     int64 // bytes: platen serve
	TreeRSS int64 // bytes: platen serve and its render processes
	// GoHeap is platen serve's Go heap in use (bytes): what of its RSS
	// Go's allocations hold, apart from SQLite's page caches (C memory)
	// and the database files it maps.
	GoHeap     int64
	Goroutines int
	FDs        int
	P99        time.Duration // of the requests that ended since the last sample
	Requests   int
	Errors     int
}

func soakOn(ctx context.Context, o SoakOptions, db database, out, logw io.Writer) (err error) {
	fmt.Fprintf(logw, "platen-bench: soak: %s: starting platen serve\n", db.name())
	e, err := startEnv(ctx, o.Platen, db, logw, "--allow-private-network")
	if err != nil {
		return err
	}
	defer stopKeepingErr(e, &err)
	receiver, err := startHookReceiver()
	if err != nil {
		return err
	}
	defer receiver.close()
	client := &http.Client{Timeout: 30 * time.Second}
	if err := e.registerDesign(ctx, client); err != nil {
		return err
	}
	hook, _ := json.Marshal(map[string]string{"url": receiver.url})
	if err := e.call(ctx, client, http.MethodPut, "/api/v1/stores/"+url.PathEscape(e.storeID)+"/webhook", hook, nil); err != nil {
		return err
	}
	rate := o.Rate
	if rate == 0 {
		capacity, err := soakCapacity(ctx, e, o, logw)
		if err != nil {
			return err
		}
		rate = capacity / 2
	}
	fmt.Fprintf(logw, "platen-bench: soak: %s: %.1f orders/s for %s\n", db.name(), rate, o.Duration)
	load := &soakLoad{e: e, rate: rate, config: latencyConfig()}
	samples, err := soakRun(ctx, o, e, load)
	if err != nil {
		return e.withLog(err)
	}
	base := filepath.Join(o.OutDir, "soak-"+db.name())
	if err := writeSoakCSV(base+".csv", samples); err != nil {
		return err
	}
	if err := drawSoakCharts(base+".png", fmt.Sprintf("Soak, %s, %.0f orders/s", db.name(), rate), samples, o.Warmup); err != nil {
		return err
	}
	soakVerdicts(out, db.name(), rate, samples, o.Warmup)
	if load.errors.Load() > 0 {
		return fmt.Errorf("soak on %s: %d requests failed, the first: %s", db.name(), load.errors.Load(), load.firstErr())
	}
	return nil
}

// soakCapacity posts CapacityOrders one-page Family A orders from Clients
// clients, closed loop, and returns the pages a second from the first POST
// to the last ready.
func soakCapacity(ctx context.Context, e *env, o SoakOptions, logw io.Writer) (float64, error) {
	client := &http.Client{Transport: loadgen.NewTransport(o.Clients), Timeout: loadgen.DefaultTimeout}
	defer client.CloseIdleConnections()
	config := latencyConfig()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, o.Clients)
	start := time.Now()
	for range o.Clients {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(o.CapacityOrders); i = next.Add(1) - 1 {
				body, _ := json.Marshal(familyAOrder(e.storeID, fmt.Sprintf("%s-cap-%d", e.run, i), config, true))
				if err := e.call(ctx, client, http.MethodPost, "/api/v1/orders", body, nil); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return 0, err
	}
	for i := o.CapacityOrders - 1; i >= 0; i-- {
		item := fmt.Sprintf("%s-cap-%d-1", e.run, i)
		for {
			status, err := e.printStatus(ctx, client, item)
			if err != nil || status == "processingfailed" {
				return 0, fmt.Errorf("capacity order %s: %v %s", item, err, status)
			}
			if status == "ready" {
				break
			}
			if err := sleepUntil(ctx, time.Now().Add(20*time.Millisecond)); err != nil {
				return 0, err
			}
		}
	}
	capacity := float64(o.CapacityOrders) / time.Since(start).Seconds()
	fmt.Fprintf(logw, "platen-bench: soak: capacity %.1f pages/s (%d orders from %d clients)\n", capacity, o.CapacityOrders, o.Clients)
	return capacity, nil
}

// soakLoad is the soak's mixed load: of every three orders, two Family A
// orders with a print file of the reference page and one Family B order of
// a cheap design with its webhook, each followed by a read of its status
// once its POST has answered; open loop, on a fixed schedule.
type soakLoad struct {
	e      *env
	rate   float64
	config string

	mu        sync.Mutex
	latencies []time.Duration // of the requests that ended since the last take
	errors    atomic.Int64
	first     string
}

func (l *soakLoad) run(ctx context.Context, until time.Time) {
	client := &http.Client{Transport: loadgen.NewTransport(maxOrdersInFlight), Timeout: loadgen.DefaultTimeout}
	defer client.CloseIdleConnections()
	slots := make(chan struct{}, maxOrdersInFlight)
	var wg sync.WaitGroup
	interval := time.Duration(float64(time.Second) / l.rate)
	start := time.Now()
	for i := 0; ; i++ {
		at := start.Add(time.Duration(i) * interval)
		if !at.Before(until) || sleepUntil(ctx, at) != nil {
			break
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			continue
		}
		wg.Go(func() {
			defer func() { <-slots }()
			l.one(ctx, client, i)
		})
	}
	wg.Wait()
}

// one sends the i-th order of the mix and, once it is answered, a read of
// its status. (An earlier order's could still be in flight: the first
// PostgreSQL soak read the order sent three before, and 7 of its reads
// came before that order's POST had answered, 404.)
func (l *soakLoad) one(ctx context.Context, client *http.Client, i int) {
	if i%3 == 2 {
		var created struct{ Data shopOrder }
		if l.timed(ctx, client, http.MethodPost, "/v1/shop/orders", shopOrderBody(fmt.Sprintf("%s-soak-b-%d", l.e.run, i), 1), &created) {
			l.timed(ctx, client, http.MethodGet, "/v1/shop/orders/"+url.PathEscape(created.Data.ReferenceNumber), nil, nil)
		}
		return
	}
	body, _ := json.Marshal(familyAOrder(l.e.storeID, fmt.Sprintf("%s-soak-a-%d", l.e.run, i), l.config, true))
	if l.timed(ctx, client, http.MethodPost, "/api/v1/orders", body, nil) {
		l.timed(ctx, client, http.MethodGet, fmt.Sprintf("/api/v1/order-items/%s-soak-a-%d-1/print", l.e.run, i), nil, nil)
	}
}

// timed makes one request, noting its time or its failure.
func (l *soakLoad) timed(ctx context.Context, client *http.Client, method, path string, body []byte, out any) bool {
	begin := time.Now()
	err := l.e.call(ctx, client, method, path, body, out)
	took := time.Since(begin)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		if l.errors.Add(1) == 1 {
			l.first = err.Error()
		}
		return false
	}
	l.latencies = append(l.latencies, took)
	return true
}

// take returns the latencies since the last take.
func (l *soakLoad) take() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.latencies
	l.latencies = nil
	return out
}

func (l *soakLoad) firstErr() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.first
}

// soakRun runs the load for o.Duration and samples the server every
// o.Sample.
func soakRun(ctx context.Context, o SoakOptions, e *env, load *soakLoad) ([]soakSample, error) {
	start := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		load.run(ctx, start.Add(o.Duration))
	}()
	metrics := &http.Client{Timeout: 5 * time.Second}
	var samples []soakSample
	for n := 1; time.Duration(n)*o.Sample <= o.Duration; n++ {
		if err := sleepUntil(ctx, start.Add(time.Duration(n)*o.Sample)); err != nil {
			return samples, err
		}
		s, err := sampleServer(ctx, e, metrics)
		if err != nil {
			return samples, err
		}
		took := load.take()
		slices.Sort(took)
		s.At, s.Requests, s.Errors = time.Since(start), len(took), int(load.errors.Load())
		if len(took) > 0 {
			s.P99 = loadgen.Percentile(took, 99)
		}
		samples = append(samples, s)
	}
	<-done
	return samples, nil
}

// sampleServer reads the server's RSS (and its render processes'), open
// files and goroutines.
func sampleServer(ctx context.Context, e *env, client *http.Client) (soakSample, error) {
	pid := e.cmd.Process.Pid
	rss, err := procstat.RSS(pid)
	if err != nil {
		return soakSample{}, err
	}
	tree := rss
	for _, child := range procstat.Children(pid) {
		if kb, err := procstat.RSS(child); err == nil {
			tree += kb
		}
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return soakSample{}, err
	}
	gauges, err := scrapeGauges(ctx, client, e.baseURL+"/metrics", "go_goroutines", "go_memstats_heap_inuse_bytes")
	if err != nil {
		return soakSample{}, err
	}
	return soakSample{RSS: rss, TreeRSS: tree, FDs: len(fds), Goroutines: int(gauges[0]), GoHeap: int64(gauges[1])}, nil
}

// scrapeGauges reads unlabelled gauges from a Prometheus endpoint, in the
// order of names.
func scrapeGauges(ctx context.Context, client *http.Client, endpoint string, names ...string) ([]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	values := make([]float64, len(names))
	found := 0
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		for i, name := range names {
			if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
				if values[i], err = strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
					return nil, err
				}
				found++
			}
		}
	}
	if found != len(names) {
		return nil, fmt.Errorf("%s lacks one of %v", endpoint, names)
	}
	return values, sc.Err()
}

func writeSoakCSV(path string, samples []soakSample) error {
	var b strings.Builder
	b.WriteString("seconds,rss_bytes,tree_rss_bytes,go_heap_bytes,goroutines,open_files,p99_ms,requests,errors\n")
	for _, s := range samples {
		fmt.Fprintf(&b, "%.0f,%d,%d,%d,%d,%d,%.2f,%d,%d\n", s.At.Seconds(), s.RSS, s.TreeRSS, s.GoHeap, s.Goroutines, s.FDs, millis(s.P99), s.Requests, s.Errors)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// soakMetric is one measure of a sample, as the verdicts and charts show it.
type soakMetric struct {
	name, unit string
	of         func(soakSample) float64
}

var soakMetrics = []soakMetric{
	{"RSS of platen serve", "MB", func(s soakSample) float64 { return float64(s.RSS) / (1 << 20) }},
	{"RSS with its render processes", "MB", func(s soakSample) float64 { return float64(s.TreeRSS) / (1 << 20) }},
	{"goroutines", "", func(s soakSample) float64 { return float64(s.Goroutines) }},
	{"open files", "", func(s soakSample) float64 { return float64(s.FDs) }},
	{"p99 latency", "ms", func(s soakSample) float64 { return millis(s.P99) }},
	{"Go heap of platen serve", "MB", func(s soakSample) float64 { return float64(s.GoHeap) / (1 << 20) }},
}

// soakVerdicts writes, per metric, the mean of the first samples after
// warm-up and of the last ones, and whether it grew past the limit.
func soakVerdicts(out io.Writer, db string, rate float64, samples []soakSample, warmup time.Duration) {
	after := slices.IndexFunc(samples, func(s soakSample) bool { return s.At >= warmup })
	if after < 0 || len(samples)-after < 4 {
		fmt.Fprintf(out, "| %s | %.1f | %d | every metric | | | | too few samples after warm-up |\n", db, rate, len(samples))
		return
	}
	window := max(2, (len(samples)-after)/6)
	for _, m := range soakMetrics {
		first := meanOf(samples[after:after+window], m.of)
		last := meanOf(samples[len(samples)-window:], m.of)
		growth := 0.0
		if first > 0 {
			growth = last/first - 1
		}
		verdict := "no growth beyond 10%"
		if growth > soakGrowthLimit {
			verdict = "GREW"
		}
		fmt.Fprintf(out, "| %s | %.1f | %d | %s | %.1f %s | %.1f %s | %+.1f%% | %s |\n",
			db, rate, len(samples), m.name, first, m.unit, last, m.unit, 100*growth, verdict)
	}
}

func meanOf(samples []soakSample, of func(soakSample) float64) float64 {
	sum := 0.0
	for _, s := range samples {
		sum += of(s)
	}
	return sum / float64(len(samples))
}
