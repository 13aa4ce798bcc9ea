package prints

import (
	"context"
	"testing"
)

// TestThePreviewLineTakesTeamsInTurn: a team with many previews queued
// holds back a team that comes later by one preview, never renders two of
// its own at once, and finds its line full past perTeam.
func TestThePreviewLineTakesTeamsInTurn(t *testing.T) {
	l := newPreviewLine(3, 2)
	for range 3 {
		if !l.add(&flight{team: 1}) {
			t.Fatal("team 1's preview refused within its line")
		}
	}
	if l.add(&flight{team: 1}) {
		t.Error("team 1's fourth preview was queued past its line of 3")
	}
	l.add(&flight{team: 2})

	first, _ := l.next(context.Background())
	second, _ := l.next(context.Background())
	if first.team != 1 || second.team != 2 {
		t.Fatalf("taken: team %d, then team %d; want 1, then 2", first.team, second.team)
	}
	if f := l.take(); f != nil {
		t.Fatalf("team %d's preview was taken while team 1's renders", f.team)
	}
	l.done(1)
	if f, _ := l.next(context.Background()); f.team != 1 {
		t.Errorf("after team 1's preview ended, team %d's was taken", f.team)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok := l.next(ctx); ok {
		t.Error("next took a preview of a team still rendering one")
	}
}
