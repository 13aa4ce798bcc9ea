// Package loadgen is a closed-loop HTTP load generator for Platen's
// benchmarks.
//
// Run starts Config.Concurrency workers that share one keep-alive
// transport. Each worker sends a request, reads and discards the whole
// response body, and sends the next one as soon as the previous one is
// done, so at most Concurrency requests are ever in flight (a closed loop:
// the offered load follows the server's speed). Workers send for
// Warmup+Duration; only requests that start after the warmup count towards
// the Result. Latencies are kept per worker and merged and sorted once at
// the end, so the percentiles are exact rather than bucketed.
package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultTimeout bounds one request when Config.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// errorBodyLimit is how much of a non-2xx response body goes into
// Result.FirstError.
const errorBodyLimit = 512

// Config describes one load run.
type Config struct {
	// URL and Method build every request when NewRequest is nil (Method
	// defaults to GET).
	URL    string
	Method string
	// Concurrency is the number of workers, each with at most one request
	// in flight. Zero means 1.
	Concurrency int
	// Duration is how long requests are measured, after Warmup.
	Duration time.Duration
	// Warmup is how long requests are sent but not measured.
	Warmup time.Duration
	// Timeout bounds one request; zero means DefaultTimeout.
	Timeout time.Duration
	// NewRequest, when set, builds the seq-th request (from 0) of worker
	// (from 0 to Concurrency-1); worker and seq together are unique within a
	// run, which is what a request needing unique ids can build them from.
	// Run replaces the request's context with its own. An error stops the
	// run.
	NewRequest func(worker, seq int) (*http.Request, error)
	// Raw gives each worker one connection of its own, written and read
	// directly, instead of an http.Transport: less CPU per request, so
	// more of a small machine is left to the server under test.
	Raw bool
}

// Result is what one run measured, after the warmup.
type Result struct {
	// Requests counts the measured requests that completed, errors
	// included.
	Requests int64
	// Errors counts the measured requests that failed: a transport error or
	// a status outside 2xx.
	Errors int64
	// FirstError describes the earliest measured failure, and FirstStatus is
	// its HTTP status (0 for a transport error); both are empty when Errors
	// is 0.
	FirstError  string
	FirstStatus int
	// Duration is the measured wall time: from the end of the warmup to the
	// end of the last measured request.
	Duration time.Duration
	// RPS is Requests per second of Duration.
	RPS float64
	// P50, P90, P99 and Max are latency percentiles (nearest rank) of the
	// successful measured requests, from sending the request to having read
	// the whole body.
	P50, P90, P99, Max time.Duration
}

// Percentile returns the p-th percentile (0 < p <= 100) of sorted by the
// nearest-rank method: the smallest value that at least p% of the values
// are less than or equal to. It returns 0 for an empty slice; p <= 0 gives
// the minimum and p >= 100 the maximum.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(n)))
	rank = min(max(rank, 1), n)
	return sorted[rank-1]
}

// Summarize sorts latencies in place and fills the latency fields of r.
func (r *Result) Summarize(latencies []time.Duration) {
	slices.Sort(latencies)
	r.P50 = Percentile(latencies, 50)
	r.P90 = Percentile(latencies, 90)
	r.P99 = Percentile(latencies, 99)
	r.Max = Percentile(latencies, 100)
}

// NewTransport returns the keep-alive transport Run uses: up to conns idle
// connections per host, no compression, no proxy, HTTP/1.1.
func NewTransport(conns int) *http.Transport {
	return &http.Transport{
		DialContext: (&net.Dialer{
			Timeout:   5 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
}

// worker is what one worker measured; merged by Run at the end.
type worker struct {
	latencies []time.Duration
	requests  int64
	errors    int64
	firstErr  string
	firstCode int
	firstAt   time.Time
	lastEnd   time.Time
	err       error // a NewRequest error, which stops the run
}

// Run sends load as cfg describes and returns what it measured. It returns
// an error for an invalid Config, when NewRequest fails, or when ctx ends
// before the run does; failed requests are counted in the Result instead.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 1
	}
	if cfg.Duration <= 0 {
		return Result{}, errors.New("loadgen: Duration must be positive")
	}
	if cfg.Warmup < 0 {
		return Result{}, errors.New("loadgen: Warmup must not be negative")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	newRequest := cfg.NewRequest
	if newRequest == nil {
		if cfg.URL == "" {
			return Result{}, errors.New("loadgen: URL or NewRequest is required")
		}
		method := cfg.Method
		if method == "" {
			method = http.MethodGet
		}
		newRequest = func(int, int) (*http.Request, error) {
			return http.NewRequest(method, cfg.URL, nil)
		}
	}

	transport := NewTransport(cfg.Concurrency)
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: cfg.Timeout}

	// A NewRequest error cancels the other workers.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	start := time.Now()
	measureFrom := start.Add(cfg.Warmup)
	end := measureFrom.Add(cfg.Duration)

	workers := make([]worker, cfg.Concurrency)
	var wg sync.WaitGroup
	for i := range workers {
		w := &workers[i]
		// Enough room for a few thousand requests a second without growing.
		w.latencies = make([]time.Duration, 0, 4096)
		send := func(req *http.Request) (int, string) { return do(client, req) }
		if cfg.Raw {
			raw := &rawConn{timeout: cfg.Timeout}
			defer raw.close()
			send = raw.do
		}
		wg.Go(func() { w.run(ctx, cancel, send, newRequest, i, measureFrom, end) })
	}
	wg.Wait()

	if err := context.Cause(ctx); err != nil {
		for i := range workers {
			if workers[i].err != nil {
				return Result{}, workers[i].err
			}
		}
		// ctx ended before the run did (cancel has not run yet, so this
		// is the caller's).
		return Result{}, err
	}

	var r Result
	var lastEnd, firstAt time.Time
	total := 0
	for i := range workers {
		w := &workers[i]
		r.Requests += w.requests
		r.Errors += w.errors
		if w.firstErr != "" && (r.FirstError == "" || w.firstAt.Before(firstAt)) {
			r.FirstError, r.FirstStatus, firstAt = w.firstErr, w.firstCode, w.firstAt
		}
		if w.lastEnd.After(lastEnd) {
			lastEnd = w.lastEnd
		}
		total += len(w.latencies)
	}
	merged := make([]time.Duration, 0, total)
	for i := range workers {
		merged = append(merged, workers[i].latencies...)
	}
	r.Summarize(merged)
	r.Duration = cfg.Duration
	if lastEnd.After(end) {
		r.Duration = lastEnd.Sub(measureFrom)
	}
	r.RPS = float64(r.Requests) / r.Duration.Seconds()
	return r, nil
}

func (w *worker) run(ctx context.Context, cancel context.CancelFunc, send func(*http.Request) (int, string),
	newRequest func(int, int) (*http.Request, error), id int, measureFrom, end time.Time) {
	for seq := 0; ; seq++ {
		if ctx.Err() != nil || !time.Now().Before(end) {
			return
		}
		req, err := newRequest(id, seq)
		if err != nil {
			w.err = fmt.Errorf("loadgen: NewRequest(%d, %d): %w", id, seq, err)
			cancel()
			return
		}
		req = req.WithContext(ctx)

		begin := time.Now()
		status, msg := send(req)
		done := time.Now()
		if ctx.Err() != nil {
			// Cut short by the caller's ctx: neither a result nor an error.
			return
		}
		if begin.Before(measureFrom) {
			continue
		}
		w.requests++
		w.lastEnd = done
		if msg != "" {
			w.errors++
			if w.firstErr == "" {
				w.firstErr, w.firstCode, w.firstAt = msg, status, begin
			}
			continue
		}
		w.latencies = append(w.latencies, done.Sub(begin))
	}
}

// do sends req and reads the whole body. It returns the status (0 for a
// transport error) and, for a failure, a message describing it.
func do(client *http.Client, req *http.Request) (int, string) {
	resp, err := client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return resp.StatusCode, fmt.Sprintf("%s %s: reading the body: %v", req.Method, req.URL.Path, err)
		}
		return resp.StatusCode, ""
	}
	head, _ := io.ReadAll(io.LimitReader(resp.Body, errorBodyLimit))
	_, _ = io.Copy(io.Discard, resp.Body) // keep the connection reusable
	return resp.StatusCode, fmt.Sprintf("%s %s: %s: %s", req.Method, req.URL.Path, resp.Status,
		strings.TrimSpace(string(head)))
}
