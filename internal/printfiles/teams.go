package printfiles

import (
	"math/rand/v2"
	"sync"
	"time"
)

// TeamLimit caps how many renders one team runs at once in this process,
// so that a team with hundreds of heavy renders leaves a render process to
// everyone else (the supervisor runs one more than a team may hold). A
// render over its team's cap is postponed, not held: its job gives its
// queue slot back and returns a moment later.
type TeamLimit struct {
	mu      sync.Mutex
	cap     int
	running map[int]int
}

// NewTeamLimit lets each team run at most n renders at once.
func NewTeamLimit(n int) *TeamLimit {
	return &TeamLimit{cap: max(n, 1), running: map[int]int{}}
}

// Acquire takes one of team's places, when it has one free.
func (l *TeamLimit) Acquire(team int) bool {
	if l == nil {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running[team] >= l.cap {
		return false
	}
	l.running[team]++
	return true
}

// Release gives back a place Acquire took.
func (l *TeamLimit) Release(team int) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running[team]--; l.running[team] <= 0 {
		delete(l.running, team)
	}
}

// PostponeFor is how long a render over its team's cap waits before its
// job is tried again: about a cheap render's time, jittered so that a
// team's postponed jobs do not all come back at once.
func PostponeFor() time.Duration {
	return 500*time.Millisecond + rand.N(500*time.Millisecond) //nolint:gosec // jitter, not a secret
}
