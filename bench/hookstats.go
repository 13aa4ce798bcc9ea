package bench

import (
	"slices"
	"time"
)

// hookStats is what one webhooks step measured, over the prints that
// became ready inside its window.
type hookStats struct {
	window time.Duration
	// expected counts the prints made ready in the window (each owes one
	// delivery); delivered those whose webhook arrived.
	expected, delivered int
	// created counts the prints ordered in the window; backlog those
	// ordered before its end and not ready at its end (renders behind).
	created, backlog int
	// latency is ready → arrival; wait is ready → start of the delivering
	// attempt (the job queue), and post is that start → arrival (reading
	// the delivery, signing, the POST). render is created → ready. All
	// sorted. inTx is ready → the delivery row's created_at, both set in
	// the one transaction: how long it ran on after setting updated_at,
	// before its commit (which the latency includes).
	latency, wait, post, render, inTx []time.Duration
	// arrivals counts every delivery the receiver took, in the whole run.
	arrivals int
	// repeats counts arrivals of a Platen-Delivery already seen;
	// multiNotified the prints that arrived under more than one delivery;
	// bad the requests that were no print_files.ready delivery.
	repeats, multiNotified, bad int
}

// readyRate is prints made ready per second in the window.
func (s *hookStats) readyRate() float64 { return float64(s.expected) / s.window.Seconds() }

// createdRate is prints ordered per second in the window.
func (s *hookStats) createdRate() float64 { return float64(s.created) / s.window.Seconds() }

// analyzeHooks joins the receiver's arrivals with the database's rows.
// The window is [from, to); a print belongs to it by its ready time.
func analyzeHooks(prints []printRow, deliveries map[string]deliveryRow, arrivals []arrival, bad int, from, to time.Time) hookStats {
	s := hookStats{window: to.Sub(from), bad: bad, arrivals: len(arrivals)}
	first, byDelivery := firstArrivals(arrivals)
	for _, n := range byDelivery {
		s.repeats += n - 1
	}
	for _, a := range first {
		if a.deliveries > 1 {
			s.multiNotified++
		}
	}
	for _, p := range prints {
		inWindow := func(t time.Time) bool { return !t.Before(from) && t.Before(to) }
		if inWindow(p.created) {
			s.created++
		}
		ready := p.status == "ready"
		if p.created.Before(to) && (!ready || !p.updated.Before(to)) {
			s.backlog++
		}
		if !ready || !inWindow(p.updated) {
			continue
		}
		s.expected++
		s.render = append(s.render, p.updated.Sub(p.created))
		a, ok := first[p.uid]
		if !ok {
			continue
		}
		s.delivered++
		s.latency = append(s.latency, a.at.Sub(p.updated))
		d, ok := deliveries[a.deliveryID]
		if !ok {
			continue
		}
		s.inTx = append(s.inTx, d.created.Sub(p.updated))
		if !d.attempted.IsZero() {
			s.wait = append(s.wait, d.attempted.Sub(p.updated))
			s.post = append(s.post, a.at.Sub(d.attempted))
		}
	}
	for _, l := range [][]time.Duration{s.latency, s.wait, s.post, s.render, s.inTx} {
		slices.Sort(l)
	}
	return s
}

// firstArrival is a print's earliest delivery, and how many distinct
// deliveries notified it.
type firstArrival struct {
	arrival
	deliveries int
}

// firstArrivals indexes arrivals by print (the earliest of each) and counts
// each delivery id's arrivals.
func firstArrivals(arrivals []arrival) (map[string]firstArrival, map[string]int) {
	first := make(map[string]firstArrival, len(arrivals))
	byDelivery := make(map[string]int, len(arrivals))
	for _, a := range arrivals {
		byDelivery[a.deliveryID]++
		f, seen := first[a.printID]
		if byDelivery[a.deliveryID] == 1 {
			f.deliveries++
		}
		if !seen || a.at.Before(f.at) {
			f.arrival = a
		}
		first[a.printID] = f
	}
	return first, byDelivery
}
