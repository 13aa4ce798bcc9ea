package readiness

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// TestOneProbePerTTL: however many callers ask at once or within the TTL,
// the probe runs once; after the TTL it runs again and its new answer is
// seen.
func TestOneProbePerTTL(t *testing.T) {
	var calls atomic.Int64
	var failing atomic.Bool
	c := New(func(context.Context) error {
		calls.Add(1)
		time.Sleep(20 * time.Millisecond) // so that callers overlap
		if failing.Load() {
			return errors.New("disk I/O error")
		}
		return nil
	}, quiet).WithTTL(200 * time.Millisecond)

	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if err := c.Check(t.Context()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d probes for 50 callers at once, want 1", n)
	}
	failing.Store(true)
	if err := c.Check(t.Context()); err != nil {
		t.Errorf("within the TTL: %v, want the cached answer", err)
	}
	time.Sleep(250 * time.Millisecond)
	if err := c.Check(t.Context()); err == nil {
		t.Error("after the TTL: ready, want the new failure")
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d probes, want 2", n)
	}
}

// TestSlowProbe: a caller that gives up gets its own error while the probe
// goes on, bounded by the timeout, and its answer serves the next caller.
func TestSlowProbe(t *testing.T) {
	release := make(chan struct{})
	c := New(func(ctx context.Context) error {
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}, quiet)
	c.timeout = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if err := c.Check(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("impatient caller: %v", err)
	}
	if err := c.Check(t.Context()); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a probe past its timeout: %v, want not ready", err)
	}
	close(release)
}
