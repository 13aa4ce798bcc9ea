package gateway

import (
	"context"
	"sync"
	"time"

	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/auth"
)

// Large bodies are read, checked, decoded and handed to the gRPC side
// whole: an 8 MB one holds about 40 MB while its request runs. Nothing else
// bounded how many one team sent at once, and ten senders of 8 MB design
// versions (each refused in the end) took serve near 1 GB and /healthz's
// p99 to 170 ms. A team may have largeBodiesPerTeam large bodies in flight,
// and the process largeBodiesInAll; a request past them waits up to
// largeBodyWait for a turn, then gets 429 with Retry-After. Large is over
// 2 MiB: a 1 MB design with its photo inside is an everyday order.
const (
	largeBody          = 2 << 20
	largeBodiesPerTeam = 2
	largeBodiesInAll   = 8
	largeBodyWait      = 2 * time.Second
)

// errLargeBodiesBusy is a large body refused for want of a turn.
var errLargeBodiesBusy = apierr.RateLimited("too many large requests of this team at once: try again in a moment")

// largeBodies hands out the turns.
type largeBodies struct {
	all   chan struct{}
	mu    sync.Mutex
	teams map[int]*teamTurns
}

// teamTurns is one team's turns and how many requests hold or wait for one.
type teamTurns struct {
	turns chan struct{}
	users int
}

func newLargeBodies() *largeBodies {
	return &largeBodies{all: make(chan struct{}, largeBodiesInAll), teams: map[int]*teamTurns{}}
}

// acquire takes a turn for a body of length bytes (-1: unknown, counted as
// large) of the request's team, and returns its release; a small body
// needs none.
func (l *largeBodies) acquire(ctx context.Context, length int64) (release func(), err error) {
	if length >= 0 && length < largeBody {
		return func() {}, nil
	}
	team := 0
	if p, err := auth.FromContext(ctx); err == nil {
		team = p.TeamID
	}
	t := l.join(team)
	wait, cancel := context.WithTimeout(ctx, largeBodyWait)
	defer cancel()
	select {
	case t.turns <- struct{}{}:
	case <-wait.Done():
		l.leave(team)
		return nil, errLargeBodiesBusy
	}
	select {
	case l.all <- struct{}{}:
	case <-wait.Done():
		<-t.turns
		l.leave(team)
		return nil, errLargeBodiesBusy
	}
	return func() { <-l.all; <-t.turns; l.leave(team) }, nil
}

// join counts a user of team's turns, making them when it has none.
func (l *largeBodies) join(team int) *teamTurns {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.teams[team]
	if t == nil {
		t = &teamTurns{turns: make(chan struct{}, largeBodiesPerTeam)}
		l.teams[team] = t
	}
	t.users++
	return t
}

// leave forgets team's turns once nobody holds or waits for one, so the
// map holds only teams sending large bodies now.
func (l *largeBodies) leave(team int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t := l.teams[team]; t != nil {
		if t.users--; t.users == 0 {
			delete(l.teams, team)
		}
	}
}
