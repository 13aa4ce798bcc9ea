package queue

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// wakeTimeout bounds one wake (a job's insert, or a NOTIFY); a wake that
// fails leaves the jobs to the next poll.
const wakeTimeout = 5 * time.Second

// wakes coalesces the wakes of each queue: one in flight, and one more
// after it when commits asked meanwhile. A wake is a write (see Wake), so
// a burst of commits costs a wake or two, not one each; and a commit that
// asks while one is in flight is still covered, by the one after it.
type wakes struct {
	mu      sync.Mutex
	pending map[string]wakeState
	stopped bool // the queue is stopping: no new wakes
	running sync.WaitGroup
}

// stop refuses new wakes and waits for those in flight, each of which ends
// within wakeTimeout.
func (w *wakes) stop() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
	w.running.Wait()
}

type wakeState int

const (
	wakeIdle wakeState = iota
	wakeRunning
	wakeRunningAgain // running, and asked again since it began
)

// WakeSoon wakes the workers of queue name (see Wake) in the background,
// once the transaction that queued their jobs has committed: without it
// they may find the jobs only at their next poll. It never blocks and
// never fails: a wake that cannot be made leaves the jobs to that poll.
func (q *Queue) WakeSoon(name string) {
	if !q.working && !q.listens {
		return
	}
	q.wakes.mu.Lock()
	defer q.wakes.mu.Unlock()
	if q.wakes.stopped {
		return
	}
	if q.wakes.pending == nil {
		q.wakes.pending = map[string]wakeState{}
	}
	switch q.wakes.pending[name] {
	case wakeIdle:
		q.wakes.pending[name] = wakeRunning
		q.wakes.running.Add(1)
		go q.wakeLoop(name)
	default:
		q.wakes.pending[name] = wakeRunningAgain
	}
}

func (q *Queue) wakeLoop(name string) {
	defer q.wakes.running.Done()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), wakeTimeout)
		if err := q.Wake(ctx, name); err != nil {
			slog.Debug("queue: wake failed; the next poll finds the jobs", "queue", name, "error", err)
		}
		cancel()
		q.wakes.mu.Lock()
		if q.wakes.pending[name] == wakeRunningAgain {
			q.wakes.pending[name] = wakeRunning
			q.wakes.mu.Unlock()
			continue
		}
		q.wakes.pending[name] = wakeIdle
		q.wakes.mu.Unlock()
		return
	}
}
