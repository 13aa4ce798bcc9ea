package webhooks

import (
	"math/rand/v2"
	"time"
)

// Circuit is a store endpoint's health, kept in the database so that every
// process delivering for the store sees the same: the failed attempts in a
// row and, once they reach Limits.Failures, a pause. The zero Circuit is a
// healthy endpoint.
type Circuit struct {
	Failures int
	// OpenUntil is the end of the pause; nil when the endpoint is not
	// paused. Once it has passed, one delivery (the probe) is tried before
	// the others, and its outcome ends the pause or starts a longer one.
	OpenUntil *time.Time
	// OpenFor is the pause's length, doubled by each failed probe.
	OpenFor time.Duration
	// ProbeUntil is set while a probe is under way.
	ProbeUntil *time.Time
}

// breaker applies Limits to a store's Circuit.
type breaker struct{ Limits }

// check says what a delivery of the store does now: go (both zero), go as
// the probe that tests a paused endpoint, or wait until hold without an
// attempt.
func (b breaker) check(c Circuit, now time.Time) (hold time.Time, probe bool) {
	switch {
	case c.OpenUntil == nil:
		return time.Time{}, false
	case now.Before(*c.OpenUntil):
		// Spread after the pause, where only the probe may go: the held
		// deliveries come back in turn, not all at its end.
		return c.OpenUntil.Add(b.spread(c.OpenFor)), false
	case c.ProbeUntil != nil && now.Before(*c.ProbeUntil):
		return b.afterProbe(c, now), false
	}
	return time.Time{}, true
}

// afterProbe is when a delivery that found a probe under way tries again:
// soon, as a probe mostly takes a moment, but not in a tight loop while one
// hangs.
func (b breaker) afterProbe(c Circuit, now time.Time) time.Time {
	return now.Add(min(minDefer, b.maxDefer()) + b.spread(c.OpenFor))
}

// spread is a wait at random within a window as long as the pause, at
// least a second and at most the longest deferral: after a long pause the
// held deliveries go again within half a minute of the probe.
func (b breaker) spread(pause time.Duration) time.Duration {
	window := min(max(pause, time.Second), b.maxDefer())
	if window <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(window)))
}

// probeLease is how long a probe's turn lasts: its attempt, and time to
// record it. A probe whose process died frees the turn when it passes.
func (b breaker) probeLease() time.Duration { return b.AttemptTimeout + 5*time.Second }

// maxDefer is the longest a delivery waits for its store's turn before it
// checks again.
func (b breaker) maxDefer() time.Duration { return 3 * b.AttemptTimeout }

// failed is the circuit after a failed attempt, given c with the failure
// counted. The Failures-th failure in a row pauses the endpoint for Pause;
// a failed probe pauses it again, twice as long, up to MaxPause. Failures
// of attempts that started before the pause leave it as it is.
func (b breaker) failed(c Circuit, probe bool, now time.Time) Circuit {
	switch {
	case probe && c.OpenUntil != nil:
		c.OpenFor = min(max(2*c.OpenFor, b.Pause), b.MaxPause)
	case c.OpenUntil == nil && c.Failures >= b.Failures:
		c.OpenFor = b.Pause
	default:
		return c
	}
	until := now.Add(c.OpenFor)
	c.OpenUntil, c.ProbeUntil = &until, nil
	return c
}
