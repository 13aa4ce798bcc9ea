package poll_test

import (
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/platen-print/platen/internal/platentest/poll"
)

// TestBacksOff: checks come at once, then after pauses of 1, 2, 4 … ms,
// never more than MaxGap apart. On synctest's clock, so that the times are
// exact.
func TestBacksOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var at []time.Duration
		held := poll.Within(time.Second, nil, func() bool {
			at = append(at, time.Since(start))
			return time.Since(start) >= 500*time.Millisecond
		})
		if !held {
			t.Fatal("Within: false, want the condition seen to hold")
		}
		ms := time.Millisecond
		want := []time.Duration{0, 1 * ms, 3 * ms, 7 * ms, 15 * ms, 31 * ms, 63 * ms, 127 * ms, 227 * ms, 327 * ms, 427 * ms, 527 * ms}
		if !slices.Equal(at, want) {
			t.Errorf("checked at %v, want %v", at, want)
		}
	})
}

// TestSignalWakes: a Notify makes the next check come at once, however
// long the pause had grown; a Notify while the condition runs is not lost.
func TestSignalWakes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var s poll.Signal
		var ready atomic.Bool
		start := time.Now()
		go func() {
			time.Sleep(10 * time.Second)
			ready.Store(true)
			s.Notify()
		}()
		if !poll.Within(time.Minute, &s, ready.Load) {
			t.Fatal("Within: false, want the signalled change seen")
		}
		if took := time.Since(start); took != 10*time.Second {
			t.Errorf("seen after %v, want 10s: at the Notify, not at the next pause's end", took)
		}

		checks := 0
		start = time.Now()
		poll.Within(time.Minute, &s, func() bool {
			checks++
			if checks == 1 {
				s.Notify() // the change comes while the first check runs
			}
			return checks == 2
		})
		if took := time.Since(start); took != 0 {
			t.Errorf("a Notify during a check was seen after %v, want at once", took)
		}
	})
}

// TestGivesUp: a condition that never holds is checked one last time when
// the time is up, and Until fails the test naming what it waited for.
func TestGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var last time.Duration
		if poll.Within(time.Second, nil, func() bool { last = time.Since(start); return false }) {
			t.Fatal("Within: true for a condition that never held")
		}
		if last != time.Second {
			t.Errorf("last check at %v, want at the deadline", last)
		}

		rec := &fatalRecorder{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			poll.Until(rec, 2*time.Second, "the answer", func() bool { return false })
		}()
		<-done
		if want := "the answer: not within 2s"; rec.msg != want {
			t.Errorf("Until failed with %q, want %q", rec.msg, want)
		}
	})
}

// fatalRecorder keeps a Fatalf's message and ends the goroutine, as
// testing.T's does, without failing the real test.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
