package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func TestPercentile(t *testing.T) {
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = ms(i + 1) // 1ms..100ms
	}
	ten := hundred[:10] // 1ms..10ms
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one p50", []time.Duration{ms(7)}, 50, ms(7)},
		{"one p99", []time.Duration{ms(7)}, 99, ms(7)},
		{"hundred p50", hundred, 50, ms(50)},
		{"hundred p90", hundred, 90, ms(90)},
		{"hundred p99", hundred, 99, ms(99)},
		{"hundred p99.5", hundred, 99.5, ms(100)},
		{"hundred max", hundred, 100, ms(100)},
		{"hundred p0 is the minimum", hundred, 0, ms(1)},
		{"ten p50", ten, 50, ms(5)},
		{"ten p51 rounds up", ten, 51, ms(6)},
		{"ten p90", ten, 90, ms(9)},
		{"ten p99", ten, 99, ms(10)},
		{"above 100 is the maximum", ten, 150, ms(10)},
	}
	for _, tt := range tests {
		if got := Percentile(tt.sorted, tt.p); got != tt.want {
			t.Errorf("%s: Percentile(%d values, %v) = %v, want %v", tt.name, len(tt.sorted), tt.p, got, tt.want)
		}
	}
}

func TestSummarizeSorts(t *testing.T) {
	// 1ms..100ms, shuffled deterministically (37 is coprime with 100).
	lat := make([]time.Duration, 100)
	for i := range lat {
		lat[i] = ms(i*37%100 + 1)
	}
	var r Result
	r.Summarize(lat)
	if r.P50 != ms(50) || r.P90 != ms(90) || r.P99 != ms(99) || r.Max != ms(100) {
		t.Fatalf("Summarize = p50 %v p90 %v p99 %v max %v, want 50ms 90ms 99ms 100ms", r.P50, r.P90, r.P99, r.Max)
	}
	for i := 1; i < len(lat); i++ {
		if lat[i-1] > lat[i] {
			t.Fatalf("latencies not sorted at %d: %v > %v", i, lat[i-1], lat[i])
		}
	}
}

// server is an httptest server that fails every request to /fail and counts
// requests and new connections.
type server struct {
	*httptest.Server
	requests atomic.Int64
	conns    atomic.Int64
	mu       sync.Mutex
	seen     map[string]bool // X-Seq headers, to check uniqueness
	dupes    atomic.Int64
}

func newServer(t *testing.T) *server {
	s := &server{seen: map[string]bool{}}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		if seq := r.Header.Get("X-Seq"); seq != "" {
			s.mu.Lock()
			if s.seen[seq] {
				s.dupes.Add(1)
			}
			s.seen[seq] = true
			s.mu.Unlock()
		}
		if r.URL.Path == "/fail" {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		_, _ = io.WriteString(w, strings.Repeat("x", 1000))
	}))
	s.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func checkOrdered(t *testing.T, r Result) {
	t.Helper()
	if !(0 < r.P50 && r.P50 <= r.P90 && r.P90 <= r.P99 && r.P99 <= r.Max) {
		t.Errorf("percentiles out of order: p50 %v p90 %v p99 %v max %v", r.P50, r.P90, r.P99, r.Max)
	}
}

func TestRunCountsAndErrors(t *testing.T) {
	s := newServer(t)
	const workers = 4
	cfg := Config{
		// Raw, as the bench runs: each worker owns one connection, so the
		// connection count below is exact. (net/http's Transport may dial a
		// spare connection while a finished one is still being pooled.)
		Raw:         true,
		Concurrency: workers,
		Duration:    200 * time.Millisecond,
		Warmup:      50 * time.Millisecond,
		NewRequest: func(worker, seq int) (*http.Request, error) {
			path := "/ok"
			if seq%5 == 4 {
				path = "/fail"
			}
			req, err := http.NewRequest(http.MethodPost, s.URL+path, strings.NewReader("{}"))
			if err != nil {
				return nil, err
			}
			req.Header.Set("X-Seq", fmt.Sprintf("%d-%d", worker, seq))
			return req, nil
		},
	}
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests == 0 || r.Errors == 0 || r.Errors >= r.Requests {
		t.Fatalf("Requests %d, Errors %d: want some of both", r.Requests, r.Errors)
	}
	if served := s.requests.Load(); served < r.Requests {
		t.Errorf("server saw %d requests, fewer than the %d measured", served, r.Requests)
	}
	if n := s.dupes.Load(); n != 0 {
		t.Errorf("%d (worker, seq) pairs repeated", n)
	}
	if r.FirstStatus != http.StatusInternalServerError || !strings.Contains(r.FirstError, "boom") ||
		!strings.Contains(r.FirstError, "/fail") {
		t.Errorf("first error = %d %q, want 500 with the path and body", r.FirstStatus, r.FirstError)
	}
	if r.Duration < cfg.Duration || r.RPS <= 0 {
		t.Errorf("Duration %v, RPS %v", r.Duration, r.RPS)
	}
	checkOrdered(t, r)
	// Keep-alive: a closed loop of n workers never needs more than n
	// connections.
	if n := s.conns.Load(); n > workers {
		t.Errorf("%d connections for %d workers", n, workers)
	}
}

func TestRunURLAndNoWarmup(t *testing.T) {
	s := newServer(t)
	r, err := Run(context.Background(), Config{URL: s.URL + "/ok", Concurrency: 2, Duration: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests == 0 || r.Errors != 0 || r.FirstError != "" {
		t.Fatalf("Requests %d, Errors %d (%q): want requests and no errors", r.Requests, r.Errors, r.FirstError)
	}
	// Without warmup every request the server answered was measured.
	if served := s.requests.Load(); served != r.Requests {
		t.Errorf("server saw %d requests, measured %d", served, r.Requests)
	}
	checkOrdered(t, r)
}

func TestRunTransportErrors(t *testing.T) {
	s := newServer(t)
	url := s.URL
	s.Close() // nothing listens any more
	r, err := Run(context.Background(), Config{URL: url, Concurrency: 2, Duration: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests == 0 || r.Errors != r.Requests || r.FirstStatus != 0 || r.FirstError == "" {
		t.Fatalf("Requests %d, Errors %d, first %d %q: want only transport errors", r.Requests, r.Errors, r.FirstStatus, r.FirstError)
	}
	if r.P50 != 0 || r.Max != 0 {
		t.Errorf("latencies of failures counted: p50 %v max %v", r.P50, r.Max)
	}
}

func TestRunNewRequestError(t *testing.T) {
	s := newServer(t)
	boom := errors.New("no more ids")
	_, err := Run(context.Background(), Config{
		Concurrency: 3,
		Duration:    10 * time.Second, // the error ends the run long before
		NewRequest: func(_, seq int) (*http.Request, error) {
			if seq == 3 {
				return nil, boom
			}
			return http.NewRequest(http.MethodGet, s.URL, nil)
		},
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Run = %v, want %v", err, boom)
	}
}

func TestRunCanceled(t *testing.T) {
	s := newServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err := Run(ctx, Config{URL: s.URL, Duration: 10 * time.Second})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
}

func TestRunInvalidConfig(t *testing.T) {
	for _, cfg := range []Config{
		{URL: "http://127.0.0.1:1"}, // no Duration
		{Duration: time.Second},     // no URL
		{URL: "http://127.0.0.1:1", Duration: time.Second, Warmup: -time.Second}, // negative warmup
	} {
		if _, err := Run(context.Background(), cfg); err == nil {
			t.Errorf("Run(%+v) succeeded", cfg)
		}
	}
}
