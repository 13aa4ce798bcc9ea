// Package readiness answers whether a process can do its work now, for
// /readyz: a probe (for `platen serve`, that the database answers and
// takes a write) run at most once per interval however often load
// balancers ask, its answer shared by every caller meanwhile.
package readiness

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// Defaults of a Checker.
const (
	// DefaultTTL is how long an answer is reused: probes from many load
	// balancers then cost one database write a second per process.
	DefaultTTL = time.Second
	// DefaultTimeout bounds one probe; a database slower than this is not
	// ready either.
	DefaultTimeout = 2 * time.Second
)

// Probe checks what readiness depends on; nil means ready.
type Probe func(ctx context.Context) error

// Checker runs a probe and caches its answer. It is safe for concurrent
// use.
type Checker struct {
	probe   Probe
	ttl     time.Duration
	timeout time.Duration
	logger  *slog.Logger

	mu      sync.Mutex
	err     error     // the last answer
	at      time.Time // when it came; zero before the first
	running chan struct{}
	// stop ends the running probe's context; closed is set by Close.
	stop   context.CancelFunc
	closed bool
	// probes is the running probe's goroutine, which Close waits for.
	probes sync.WaitGroup
}

// ErrClosed answers a check after Close.
var ErrClosed = errors.New("readiness: the checker is closed")

// New returns a Checker of probe with the default TTL and timeout.
func New(probe Probe, logger *slog.Logger) *Checker {
	return &Checker{probe: probe, ttl: DefaultTTL, timeout: DefaultTimeout, logger: logger}
}

// WithTTL sets how long an answer is reused (tests).
func (c *Checker) WithTTL(ttl time.Duration) *Checker {
	c.ttl = ttl
	return c
}

// Check returns the probe's answer: the cached one while it is fresh,
// else that of a probe run now (one at a time, shared by the callers that
// ask meanwhile). A caller whose ctx ends first gets ctx's error; the
// probe goes on for the others, bounded by its own timeout (or Close).
func (c *Checker) Check(ctx context.Context) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	if !c.at.IsZero() && time.Since(c.at) < c.ttl {
		defer c.mu.Unlock()
		return c.err
	}
	if c.running == nil {
		running := make(chan struct{})
		probeCtx, stop := context.WithTimeout(context.Background(), c.timeout)
		c.running, c.stop = running, stop
		c.probes.Go(func() { c.run(probeCtx, running) })
	}
	running := c.running
	c.mu.Unlock()
	select {
	case <-running:
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Checker) run(ctx context.Context, done chan struct{}) {
	err := c.probe(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stop()
	if !c.closed {
		c.logChange(err)
	}
	c.err, c.at, c.running, c.stop = err, time.Now(), nil, nil
	close(done)
}

// Close ends the probe running, if any, and waits for it to return: what
// it checks (a database) may then go. Later checks answer ErrClosed.
func (c *Checker) Close() {
	c.mu.Lock()
	c.closed = true
	if c.stop != nil {
		c.stop()
	}
	c.mu.Unlock()
	c.probes.Wait()
}

// logChange logs when readiness turns, not on every probe.
func (c *Checker) logChange(err error) {
	switch {
	case err != nil && (c.err == nil || c.at.IsZero()):
		c.logger.Warn("not ready", "error", err)
	case err == nil && c.err != nil:
		c.logger.Info("ready again")
	}
}
