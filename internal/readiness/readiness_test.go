package readiness

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// TestOneProbePerTTL: however many callers ask at once or within the TTL,
// the probe runs once; after the TTL it runs again and its new answer is
// seen. In a synctest bubble: the probe answers once every caller is seen
// waiting for it, and the TTL passes on the bubble's clock.
func TestOneProbePerTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var calls atomic.Int64
		var failing atomic.Bool
		answer := make(chan struct{})
		c := New(func(context.Context) error {
			if calls.Add(1) == 1 {
				<-answer
			}
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
		synctest.Wait() // all 50 wait for the one probe
		if n := calls.Load(); n != 1 {
			t.Errorf("%d probes for 50 callers at once, want 1", n)
		}
		close(answer)
		wg.Wait()
		failing.Store(true)
		time.Sleep(199 * time.Millisecond)
		if err := c.Check(t.Context()); err != nil {
			t.Errorf("within the TTL: %v, want the cached answer", err)
		}
		time.Sleep(time.Millisecond)
		if err := c.Check(t.Context()); err == nil {
			t.Error("after the TTL: ready, want the new failure")
		}
		if n := calls.Load(); n != 2 {
			t.Errorf("%d probes, want 2", n)
		}
	})
}

// TestSlowProbe: a caller that gives up gets its own error while the probe
// goes on, bounded by the timeout, and its answer serves the next caller.
// In a synctest bubble, so that both deadlines pass on its clock.
func TestSlowProbe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
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
		start := time.Now()
		if err := c.Check(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("impatient caller: %v", err)
		}
		if waited := time.Since(start); waited != 50*time.Millisecond {
			t.Errorf("the impatient caller waited %v, want its own 50ms", waited)
		}
		if err := c.Check(t.Context()); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("a probe past its timeout: %v, want not ready", err)
		}
		if took := time.Since(start); took != 300*time.Millisecond {
			t.Errorf("the probe ended after %v, want its 300ms timeout", took)
		}
	})
}

// TestCloseEndsTheProbe: a probe left running by a caller that gave up is
// ended by Close, which returns once it has (its timeout far off); checks
// after Close answer ErrClosed and run no probe. In a synctest bubble: the
// clock stands still, so the probe can only have ended by Close.
func TestCloseEndsTheProbe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var probes atomic.Int64
		var running atomic.Bool
		c := New(func(ctx context.Context) error {
			probes.Add(1)
			running.Store(true)
			defer running.Store(false)
			<-ctx.Done()
			return ctx.Err()
		}, quiet)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if err := c.Check(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("a caller gone at once: %v", err)
		}
		synctest.Wait()
		if !running.Load() {
			t.Fatal("no probe running after the check")
		}
		start := time.Now()
		c.Close()
		if running.Load() {
			t.Error("Close returned with the probe still running")
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("Close waited %v of the bubble's clock, want the probe ended at once", waited)
		}
		if err := c.Check(t.Context()); !errors.Is(err, ErrClosed) {
			t.Errorf("a check after Close: %v, want ErrClosed", err)
		}
		if n := probes.Load(); n != 1 {
			t.Errorf("%d probes, want 1", n)
		}
	})
}
