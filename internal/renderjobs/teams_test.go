package renderjobs

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// A render over its team's cap gets the place of the render that ends,
// at once, rather than being postponed while the renders stand idle.
func TestTeamLimitHandsAFreedPlaceToTheLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := NewTeamLimit(1, 1)
		ctx := t.Context()
		if !l.Acquire(ctx, 7) {
			t.Fatal("the first render of a team was refused")
		}
		got := make(chan time.Duration, 1)
		start := time.Now()
		go func() {
			if l.Acquire(ctx, 7) {
				got <- time.Since(start)
			}
			close(got)
		}()
		synctest.Wait() // the second render is in line
		time.Sleep(100 * time.Millisecond)
		l.Release(7)
		waited, ok := <-got
		if !ok || waited != 100*time.Millisecond {
			t.Fatalf("the render in line got its place after %v (ok %v), want the moment it freed (100ms)", waited, ok)
		}
		if l.Acquire(ctx, 8) != true {
			t.Fatal("another team was refused while team 7 held its cap")
		}
	})
}

// A render that finds its team's line full is postponed at once, so one
// team holds at most its cap and its line of the queue's slots and other
// teams' jobs can still be fetched.
func TestTeamLimitLineIsAsLongAsTheCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := NewTeamLimit(2, 2)
		ctx := t.Context()
		l.Acquire(ctx, 1)
		l.Acquire(ctx, 1)
		for range 2 {
			go l.Acquire(ctx, 1)
		}
		synctest.Wait()
		start := time.Now()
		if l.Acquire(ctx, 1) {
			t.Fatal("a fifth render of a team with cap 2 got a place")
		}
		if d := time.Since(start); d != 0 {
			t.Fatalf("a render finding the line full waited %v; it must be postponed at once", d)
		}
		if !l.Acquire(ctx, 2) {
			t.Fatal("another team was refused")
		}
	})
}

// A render that waits MaxWait in line is postponed, and gives up its
// place in line; a place freed later goes to the next in line, or back.
func TestTeamLimitWaitsAtMostMaxWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := NewTeamLimit(1, 1)
		ctx := t.Context()
		l.Acquire(ctx, 3)
		start := time.Now()
		if l.Acquire(ctx, 3) {
			t.Fatal("a render got a place no render freed")
		}
		if d := time.Since(start); d != MaxWait {
			t.Fatalf("waited %v in line, want MaxWait (%v)", d, MaxWait)
		}
		l.Release(3)
		if !l.Acquire(ctx, 3) {
			t.Fatal("the freed place did not come back to the team")
		}
		if len(l.waiting) != 0 || l.running[3] != 1 {
			t.Fatalf("state after: waiting %v, running %v", l.waiting, l.running)
		}
	})
}

// A render whose job is cancelled while in line leaves it.
func TestTeamLimitCancelledWaiterLeaves(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := NewTeamLimit(1, 1)
		l.Acquire(t.Context(), 4)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan bool)
		go func() { done <- l.Acquire(ctx, 4) }()
		synctest.Wait()
		cancel()
		if <-done {
			t.Fatal("a cancelled render got a place")
		}
		l.Release(4)
		if len(l.waiting) != 0 || len(l.running) != 0 {
			t.Fatalf("state after: waiting %v, running %v", l.waiting, l.running)
		}
	})
}

// Hold waits however long the line, until a place frees or ctx ends.
func TestTeamLimitHoldWaitsForAPlace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := NewTeamLimit(1, 0)
		ctx := t.Context()
		if got, waited := l.Hold(ctx, 5); !got || waited {
			t.Fatalf("the first holder: got %v, waited %v", got, waited)
		}
		got := make(chan bool, 3)
		for range 3 {
			go func() {
				ok, waited := l.Hold(ctx, 5)
				got <- ok && waited
			}()
		}
		time.Sleep(time.Minute) // far past MaxWait: holders do not give up
		synctest.Wait()
		if len(got) != 0 {
			t.Fatal("a holder gave up or got a place no render freed")
		}
		for range 3 {
			l.Release(5)
			if !<-got {
				t.Fatal("a holder got no place when one freed")
			}
		}
		cancelled, cancel := context.WithCancel(ctx)
		done := make(chan bool)
		go func() {
			ok, _ := l.Hold(cancelled, 5)
			done <- ok
		}()
		synctest.Wait()
		cancel()
		if <-done {
			t.Fatal("a cancelled holder got a place")
		}
	})
}
