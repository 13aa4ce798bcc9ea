package prints

import (
	"context"
	"sync"
)

// previewLine holds the previews waiting for a render, one queue per
// team, and hands them to the workers a team at a time in turn: a team
// never renders two previews at once, and a team with a hundred slow
// previews waiting holds back another team's by at most one render.
type previewLine struct {
	mu      sync.Mutex
	perTeam int
	queued  map[int][]*flight
	running map[int]bool
	turns   []int         // teams with a preview queued and none running, first come first served
	wake    chan struct{} // a turn may be free
}

func newPreviewLine(perTeam, workers int) *previewLine {
	return &previewLine{
		perTeam: max(perTeam, 1), queued: map[int][]*flight{}, running: map[int]bool{},
		wake: make(chan struct{}, max(workers, 1)),
	}
}

// add queues f behind its team's previews; false when the team already
// has perTeam waiting.
func (l *previewLine) add(f *flight) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.queued[f.team]) >= l.perTeam {
		return false
	}
	l.queued[f.team] = append(l.queued[f.team], f)
	if len(l.queued[f.team]) == 1 && !l.running[f.team] {
		l.turns = append(l.turns, f.team)
		l.signal()
	}
	return true
}

// next waits for the next team's turn and takes its first preview; false
// when ctx ends first. The caller calls done(team) when it is made.
func (l *previewLine) next(ctx context.Context) (*flight, bool) {
	for {
		if f := l.take(); f != nil {
			return f, true
		}
		select {
		case <-l.wake:
		case <-ctx.Done():
			return nil, false
		}
	}
}

func (l *previewLine) take() *flight {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.turns) == 0 {
		return nil
	}
	team := l.turns[0]
	l.turns = l.turns[1:]
	queue := l.queued[team]
	f := queue[0]
	if len(queue) == 1 {
		delete(l.queued, team)
	} else {
		l.queued[team] = queue[1:]
	}
	l.running[team] = true
	if len(l.turns) > 0 {
		l.signal() // another worker may take the next turn
	}
	return f
}

// done ends team's running preview: its next one, if any, takes its turn
// behind the teams already waiting.
func (l *previewLine) done(team int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.running, team)
	if len(l.queued[team]) > 0 {
		l.turns = append(l.turns, team)
		l.signal()
	}
}

// signal wakes a worker without waiting: when every worker already has a
// wake-up pending, each looks at the turns again anyway.
func (l *previewLine) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}
