package gateway

import (
	"context"
	"errors"
	"testing"

	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/auth"
)

// TestLargeBodiesPerTeam: a team holding its turns for large bodies waits,
// then gets 429, while another team and small bodies go on; a turn given
// back is taken again, and a team with none in flight is forgotten.
func TestLargeBodiesPerTeam(t *testing.T) {
	l := newLargeBodies()
	team := func(id int) context.Context {
		return auth.WithPrincipal(context.Background(), auth.Principal{TeamID: id})
	}
	var held []func()
	for range largeBodiesPerTeam {
		release, err := l.acquire(team(1), 8<<20)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, release)
	}
	if _, err := l.acquire(team(1), -1); !errors.Is(err, apierr.ErrRateLimited) {
		t.Fatalf("a third large body of team 1: %v, want 429", err)
	}
	if release, err := l.acquire(team(1), largeBody-1); err != nil {
		t.Fatalf("a small body of team 1: %v", err)
	} else {
		release()
	}
	other, err := l.acquire(team(2), 8<<20)
	if err != nil {
		t.Fatalf("team 2 waited on team 1's large bodies: %v", err)
	}
	other()
	held[0]()
	again, err := l.acquire(team(1), 8<<20)
	if err != nil {
		t.Fatalf("a turn given back was not taken again: %v", err)
	}
	again()
	held[1]()
	if n := len(l.teams); n != 0 {
		t.Fatalf("%d teams kept with no large body in flight", n)
	}
}
