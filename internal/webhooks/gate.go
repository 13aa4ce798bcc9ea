package webhooks

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Bounds of the wait for a store's turn.
const (
	// maxSlotWait is the longest a delivery waits in its worker for a slot
	// of its store: a worker waiting is cheaper than a trip through the
	// queue (its poll is 100 ms) while the store's attempts are quick.
	maxSlotWait = 200 * time.Millisecond
	// minDefer is the shortest a delivery sent back to the queue stays
	// there, so that a busy store's deliveries are not fetched again and
	// again in a tight loop (those sent back together are spread further
	// by the store's pace). It is short because a quick store's delivery
	// is sent back too when its worker waited in vain, the process busy.
	minDefer = 250 * time.Millisecond
)

// gate keeps the deliveries in flight to each store's endpoint, in this
// process, to a limit, so that a store whose endpoint is slow cannot take
// every worker from the others. A delivery over the limit waits in its
// worker only when the store's attempts are expected to free a slot within
// maxSlotWait; otherwise it goes back to the queue until a slot should be
// free, and holds no worker meanwhile.
type gate struct {
	limit    int
	maxDefer time.Duration
	now      func() time.Time

	mu    sync.Mutex
	lanes map[string]*lane
}

// lane is one store's part of the gate; it is dropped when idle.
type lane struct {
	store   string
	slots   chan struct{}
	started []time.Time // of the attempts in flight
	waiting int
	// hold is a moving average of how long an attempt keeps its slot.
	hold time.Duration
	// next paces the deliveries sent back: each is due a slot's time after
	// the one before, so that they come back about as fast as slots free.
	next time.Time
}

func newGate(limit int, maxDefer time.Duration) *gate {
	return &gate{limit: limit, maxDefer: maxDefer, now: time.Now, lanes: map[string]*lane{}}
}

// enter takes a slot of store's lane and returns the func that frees it.
// When none is to be had soon it returns ok false and how long the delivery
// should stay in the queue before it tries again.
func (g *gate) enter(ctx context.Context, store string) (leave func(), retry time.Duration, ok bool) {
	g.mu.Lock()
	l := g.lane(store)
	select {
	case l.slots <- struct{}{}:
		return g.took(l), 0, true
	default:
	}
	now := g.now()
	if time.Duration(l.waiting+1)*l.slotTime(now, g.limit) > maxSlotWait {
		retry = g.deferral(l, now)
		g.mu.Unlock()
		return nil, retry, false
	}
	l.waiting++
	g.mu.Unlock()

	timer := time.NewTimer(maxSlotWait)
	defer timer.Stop()
	got := false
	select {
	case l.slots <- struct{}{}:
		got = true
	case <-timer.C:
	case <-ctx.Done():
	}
	g.mu.Lock()
	l.waiting--
	if got {
		return g.took(l), 0, true
	}
	retry = g.deferral(l, g.now())
	g.mu.Unlock()
	return nil, retry, false
}

// took records an attempt that has its slot (with g.mu held, which it
// releases) and returns the func that frees the slot.
func (g *gate) took(l *lane) func() {
	start := g.now()
	l.started = append(l.started, start)
	g.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { g.leave(l, start) }) }
}

// leave frees the slot of an attempt that started at start.
func (g *gate) leave(l *lane, start time.Time) {
	g.mu.Lock()
	now := g.now()
	if i := slices.Index(l.started, start); i >= 0 {
		l.started = slices.Delete(l.started, i, i+1)
	}
	l.hold += (now.Sub(start) - l.hold) / 8
	<-l.slots
	if len(l.started) == 0 && l.waiting == 0 && !l.next.After(now) {
		delete(g.lanes, l.store)
	}
	g.mu.Unlock()
}

// lane returns store's lane, made on first use (with g.mu held).
func (g *gate) lane(store string) *lane {
	l := g.lanes[store]
	if l == nil {
		l = &lane{store: store, slots: make(chan struct{}, g.limit)}
		g.lanes[store] = l
	}
	return l
}

// slotTime is how often a slot of the lane is expected to free: the time
// an attempt holds one, or the age of the oldest attempt in flight when that
// is longer (an endpoint that has just begun to hang has no slow attempt on
// record yet), shared by the slots.
func (l *lane) slotTime(now time.Time, limit int) time.Duration {
	hold := l.hold
	for _, s := range l.started {
		hold = max(hold, now.Sub(s))
	}
	return hold / time.Duration(limit)
}

// deferral is how long a delivery that found no slot stays in the queue
// (with g.mu held): at least minDefer, at the lane's pace after the ones
// sent back before it, and at most maxDefer.
func (g *gate) deferral(l *lane, now time.Time) time.Duration {
	lo := min(minDefer, g.maxDefer)
	due := now.Add(lo)
	if l.next.After(due) {
		due = l.next
	}
	l.next = due.Add(l.slotTime(now, g.limit))
	if horizon := now.Add(g.maxDefer); l.next.After(horizon) {
		l.next = horizon
	}
	return min(due.Sub(now), g.maxDefer)
}
