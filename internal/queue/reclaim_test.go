package queue

import (
	"testing"
	"time"
)

// TestDue: a job is due for release once it has not been worked here for
// the wait: counted from its Work's end when it ran here, else from the
// first sweep that found it (again when its attempt changes); never while
// it is worked.
func TestDue(t *testing.T) {
	jobs := newInFlight()
	r := &reclaimer{jobs: jobs, after: 10 * time.Second, unseen: map[int64]sighting{}}
	now := time.Now()

	jobs.begin(1)
	if r.due(runningJob{id: 1, attempt: 1}, now.Add(time.Hour)) {
		t.Error("a job being worked is due")
	}
	jobs.end(1)
	_, ended := jobs.state(1)
	if r.due(runningJob{id: 1, attempt: 1}, ended.Add(9*time.Second)) || !r.due(runningJob{id: 1, attempt: 1}, ended.Add(10*time.Second)) {
		t.Error("a job that ended here is due 10 s after it ended, not before")
	}
	jobs.begin(1) // fetched again
	if working, ended := jobs.state(1); !working || !ended.IsZero() {
		t.Errorf("worked again: working %v, ended %v", working, ended)
	}

	unseen := runningJob{id: 2, attempt: 1}
	if r.due(unseen, now) || r.due(unseen, now.Add(9*time.Second)) || !r.due(unseen, now.Add(10*time.Second)) {
		t.Error("a job never worked here is due 10 s after a sweep first found it, not before")
	}
	if r.due(runningJob{id: 2, attempt: 2}, now.Add(11*time.Second)) {
		t.Error("a new attempt of it is due at once")
	}

	jobs.end(1)
	jobs.forget(map[int64]bool{}, time.Now().Add(time.Second))
	if _, ended := jobs.state(1); !ended.IsZero() {
		t.Error("forget kept the end of a job no longer running in the database")
	}
}

// TestSweepInterval: a process looks for its stuck jobs every 2 s, or
// twice per reclaim wait when the wait is short, but not more often than
// every 100 ms.
func TestSweepInterval(t *testing.T) {
	for after, want := range map[time.Duration]time.Duration{
		DefaultReclaimAfter:   2 * time.Second,
		4 * time.Second:       2 * time.Second,
		time.Second:           500 * time.Millisecond,
		10 * time.Millisecond: 100 * time.Millisecond,
	} {
		if got := sweepInterval(after); got != want {
			t.Errorf("sweepInterval(%v) = %v, want %v", after, got, want)
		}
	}
}
