// Package readiness answers whether a process can do its work now, for
// /readyz: a probe (for `platen serve`, that the database answers and
// takes a write) run at most once per interval however often load
// balancers ask, its answer shared by every caller meanwhile.
package readiness

import (
	"context"
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
}

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
// probe goes on for the others, bounded by its own timeout.
func (c *Checker) Check(ctx context.Context) error {
	c.mu.Lock()
	if !c.at.IsZero() && time.Since(c.at) < c.ttl {
		defer c.mu.Unlock()
		return c.err
	}
	if c.running == nil {
		c.running = make(chan struct{})
		go c.run(c.running)
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

func (c *Checker) run(done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	err := c.probe(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.logChange(err)
	c.err, c.at, c.running = err, time.Now(), nil
	close(done)
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
