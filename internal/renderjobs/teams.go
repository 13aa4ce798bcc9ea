package renderjobs

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// TeamLimit caps how many renders one team runs at once in this process,
// so that a team with hundreds of heavy renders leaves a render process to
// everyone else (the supervisor runs one more than a team may hold).
//
// A render over its team's cap first waits in its team's line, when the
// line has room: the place goes to it the moment a render of its team
// ends, so a burst from one team keeps the renders busy instead of leaving
// them idle while its jobs are postponed. The queue runs as many jobs more
// than the renders as a line holds (see the server), so a team's line
// never takes the slots other teams' jobs are fetched into. A render that
// finds the line full, or waits MaxWait in it, is postponed: its job gives
// its queue slot back and returns a moment later.
type TeamLimit struct {
	mu      sync.Mutex
	cap     int
	line    int
	running map[int]int
	waiting map[int][]chan struct{}
}

// NewTeamLimit lets each team run at most n renders at once, with up to
// line more waiting for them.
func NewTeamLimit(n, line int) *TeamLimit {
	return &TeamLimit{cap: max(n, 1), line: max(line, 0), running: map[int]int{}, waiting: map[int][]chan struct{}{}}
}

// MaxWait is how long a render waits in its team's line before it is
// postponed instead. A line moves at the pace of the team's renders, so a
// long wait means heavy renders, and then a postponement costs little.
const MaxWait = 2 * time.Second

// Acquire takes one of team's places, waiting up to MaxWait in the team's
// line when all are taken and the line has room. False means postpone.
func (l *TeamLimit) Acquire(ctx context.Context, team int) bool {
	got, _ := l.acquire(ctx, team, true)
	return got
}

// Hold takes one of team's places, waiting in line for as long as ctx
// lasts, however long the line: for callers already bounded by another
// limit, as renders are by the jobs that run them. It reports whether it
// got the place, and whether it had to wait for it (the world may have
// moved meanwhile); not getting it means ctx ended.
func (l *TeamLimit) Hold(ctx context.Context, team int) (got, waited bool) {
	return l.acquire(ctx, team, false)
}

// acquire takes a place of team's, in line when bounded says the line's
// length and MaxWait apply; it reports whether it got one and whether it
// waited in line.
func (l *TeamLimit) acquire(ctx context.Context, team int, bounded bool) (got, waited bool) {
	if l == nil {
		return true, false
	}
	l.mu.Lock()
	if l.running[team] < l.cap {
		l.running[team]++
		l.mu.Unlock()
		return true, false
	}
	if bounded && len(l.waiting[team]) >= l.line {
		l.mu.Unlock()
		return false, false
	}
	handed := make(chan struct{}, 1)
	l.waiting[team] = append(l.waiting[team], handed)
	l.mu.Unlock()

	var timeout <-chan time.Time
	if bounded {
		timer := time.NewTimer(MaxWait)
		defer timer.Stop()
		timeout = timer.C
	}
	select {
	case <-handed:
		return true, true
	case <-timeout:
	case <-ctx.Done():
	}
	return l.leaveLine(team, handed), true
}

// leaveLine takes a waiter that gave up out of team's line. A place handed
// to it meanwhile is kept (true), since the releaser no longer holds it.
func (l *TeamLimit) leaveLine(team int, handed chan struct{}) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	line := l.waiting[team]
	for i, c := range line {
		if c == handed {
			l.setLine(team, append(line[:i:i], line[i+1:]...))
			return false
		}
	}
	<-handed
	return true
}

// Release gives back a place Acquire took: to the first render waiting in
// the team's line, if any.
func (l *TeamLimit) Release(team int) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if line := l.waiting[team]; len(line) > 0 {
		line[0] <- struct{}{}
		l.setLine(team, line[1:])
		return
	}
	if l.running[team]--; l.running[team] <= 0 {
		delete(l.running, team)
	}
}

func (l *TeamLimit) setLine(team int, line []chan struct{}) {
	if len(line) == 0 {
		delete(l.waiting, team)
		return
	}
	l.waiting[team] = line
}

// PostponeFor is how long a render over its team's cap waits before its
// job is tried again: about a cheap render's time, jittered so that a
// team's postponed jobs do not all come back at once.
func PostponeFor() time.Duration {
	return 500*time.Millisecond + rand.N(500*time.Millisecond) //nolint:gosec // jitter, not a secret
}
