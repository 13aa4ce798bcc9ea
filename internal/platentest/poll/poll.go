// Package poll lets tests wait for a condition without a fixed sleep. A
// condition is checked at once, then again after a pause that starts at a
// millisecond and doubles up to MaxGap, or as soon as a Signal says that
// it may have changed. It depends on nothing of Platen's, so that the
// tests of every package (platentest's own dependencies too) can use it.
package poll

import (
	"sync"
	"testing"
	"time"
)

// MaxGap is the longest pause between two checks: short enough that a
// change nothing signals is seen within a tenth of a second, long enough
// that a wait of a minute costs a few hundred checks, not thousands.
const MaxGap = 100 * time.Millisecond

// Until checks cond until it holds, and fails t, naming what, when it
// has not within the given time.
func Until(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	UntilSignalled(t, within, what, nil, cond)
}

// UntilSignalled is Until that also checks again as soon as s (when not
// nil) is notified.
func UntilSignalled(t testing.TB, within time.Duration, what string, s *Signal, cond func() bool) {
	t.Helper()
	if !Within(within, s, cond) {
		t.Fatalf("%s: not within %v", what, within)
	}
}

// Within checks cond until it holds, or until the time is up, and says
// whether it held. It checks again as soon as s (when not nil) is
// notified; the wait for s starts before each check, so that a change
// made while cond runs is not missed. Its last check comes after the time
// is up, so that a condition met during the final pause still counts.
func Within(within time.Duration, s *Signal, cond func() bool) bool {
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	gap := time.Millisecond
	for {
		var changed <-chan struct{}
		if s != nil {
			changed = s.Next()
		}
		if cond() {
			return true
		}
		pause := time.NewTimer(gap)
		select {
		case <-changed:
		case <-pause.C:
			gap = min(2*gap, MaxGap)
		case <-deadline.C:
			pause.Stop()
			return cond()
		}
		pause.Stop()
	}
}

// Signal wakes every waiter at once: each Notify closes the channel Next
// handed out since the previous one. The zero value is ready to use.
type Signal struct {
	mu   sync.Mutex
	next chan struct{}
}

// Next returns a channel that is closed at the next Notify.
func (s *Signal) Next() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next == nil {
		s.next = make(chan struct{})
	}
	return s.next
}

// Notify wakes those waiting on Next.
func (s *Signal) Notify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next != nil {
		close(s.next)
		s.next = nil
	}
}
