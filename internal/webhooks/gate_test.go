package webhooks

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// TestGateLimitsAStore: a store gets limit slots; another store is not
// affected by it; a slot left is a slot free. In a synctest bubble, so
// that the third's wait is measured on the bubble's clock.
func TestGateLimitsAStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(2, 30*time.Second)
		ctx := context.Background()
		leaveA1, _, ok1 := g.enter(ctx, "a")
		_, _, ok2 := g.enter(ctx, "a")
		if !ok1 || !ok2 {
			t.Fatal("the first two of store a had no slot")
		}
		start := time.Now()
		if _, retry, ok := g.enter(ctx, "a"); ok || retry < minDefer || retry > 30*time.Second {
			t.Errorf("third of store a: ok %v, retry %v; want sent back for %v to 30 s", ok, retry, minDefer)
		}
		if waited := time.Since(start); waited > maxSlotWait {
			t.Errorf("the third waited %v, more than %v", waited, maxSlotWait)
		}
		if _, _, ok := g.enter(ctx, "b"); !ok {
			t.Error("store b had no slot while a was full")
		}
		leaveA1()
		leaveA1() // twice is once
		if _, _, ok := g.enter(ctx, "a"); !ok {
			t.Error("no slot after one left")
		}
		if _, _, ok := g.enter(ctx, "a"); ok {
			t.Error("a second leave of the same attempt freed a second slot")
		}
	})
}

// TestGateWaitsForQuickAttempts: while a store's attempts are quick, a
// delivery over the limit waits in its worker and takes the slot freed.
// The slot is freed only once the second delivery is seen waiting for it
// (synctest.Wait: every other goroutine of the bubble is blocked), and the
// bubble's clock stands still meanwhile, so its wait cannot time out.
func TestGateWaitsForQuickAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(1, 30*time.Second)
		ctx := context.Background()
		leave, _, _ := g.enter(ctx, "a")
		done := make(chan bool, 1)
		go func() {
			next, _, ok := g.enter(ctx, "a")
			if ok {
				next()
			}
			done <- ok
		}()
		synctest.Wait()
		g.mu.Lock()
		waiting := g.lanes["a"].waiting
		g.mu.Unlock()
		if waiting != 1 {
			t.Fatalf("%d deliveries wait for store a's slot, want the second one", waiting)
		}
		leave()
		if !<-done {
			t.Error("the waiting delivery had no slot")
		}
		if len(g.lanes) != 0 {
			t.Errorf("an idle store's lane is kept: %v", g.lanes)
		}
	})
}

// TestGatePacesDeferrals: deliveries sent back while a store's attempts
// hang come back a slot's time apart (the oldest attempt's age shared by
// the slots), from minDefer on, and none later than maxDefer.
func TestGatePacesDeferrals(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	g := newGate(4, 30*time.Second)
	g.now = func() time.Time { return now }
	ctx := context.Background()
	for range 4 {
		if _, _, ok := g.enter(ctx, "a"); !ok {
			t.Fatal("no slot")
		}
	}
	now = now.Add(8 * time.Second) // the four hang: a slot every 2 s
	var got []time.Duration
	for range 20 {
		_, retry, ok := g.enter(ctx, "a")
		if ok {
			t.Fatal("a fifth slot")
		}
		got = append(got, retry)
	}
	for i, want := range []time.Duration{minDefer, minDefer + 2*time.Second, minDefer + 4*time.Second} {
		if got[i] != want {
			t.Errorf("deferral %d: %v, want %v", i, got[i], want)
		}
	}
	if last := got[len(got)-1]; last != 30*time.Second {
		t.Errorf("last deferral %v, want the 30 s bound", last)
	}
}
