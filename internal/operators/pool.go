package operators

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/platen-print/platen/internal/apierr"
)

// Each Argon2id hash takes 64 MiB for its whole run, and a sign-in with an
// unknown e-mail costs one as well, so without a bound a flood of sign-ins
// held a gigabyte and starved every team's requests. The process computes
// at most passwordSlots hashes at once; the others wait up to passwordWait
// for a turn and are then refused, so a flood costs 429s rather than
// memory. One at a time, because a hash also keeps 4 threads busy (its
// lanes): two at once took both cores of a 2-core machine, and under a
// sign-in flood another team's requests waited up to 2 s and /healthz's p99
// rose to 160-420 ms; one at a time kept them to 0.3 s and 33 ms.
const (
	passwordSlots = 1
	passwordWait  = 1500 * time.Millisecond
)

// ErrPasswordsBusy is a password check or hash refused because the
// process's hashes were all in use for passwordWait: 429, to be tried again
// in a moment.
var ErrPasswordsBusy error = apierr.RateLimited("too many sign-ins at the moment: try again in a moment")

// PasswordStats is what the process's password hashes have done.
type PasswordStats struct {
	// InFlight and Peak are the hashes running now and the most ever at once.
	InFlight, Peak int64
	// Hashes counts those computed; Refused those that found no turn.
	Hashes, Refused int64
}

// hashPool is the bound on hashes at once. It is the process's, not a
// caller's: the memory it guards is the process's, and two pools would
// double it.
type hashPool struct {
	slots                           chan struct{}
	wait                            time.Duration
	inFlight, peak, hashes, refused atomic.Int64
}

var passwords = &hashPool{slots: make(chan struct{}, passwordSlots), wait: passwordWait}

// Passwords reports the process's password hashes (for tests and metrics).
func Passwords() PasswordStats {
	p := passwords
	return PasswordStats{InFlight: p.inFlight.Load(), Peak: p.peak.Load(), Hashes: p.hashes.Load(), Refused: p.refused.Load()}
}

// run computes one hash with f when a turn comes within the wait;
// ErrPasswordsBusy when none does, ctx's error when the caller gives up.
func (p *hashPool) run(ctx context.Context, f func()) error {
	timer := time.NewTimer(p.wait)
	defer timer.Stop()
	select {
	case p.slots <- struct{}{}:
	case <-timer.C:
		p.refused.Add(1)
		return ErrPasswordsBusy
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-p.slots }()
	p.enter()
	defer p.inFlight.Add(-1)
	f()
	return nil
}

func (p *hashPool) enter() {
	n := p.inFlight.Add(1)
	p.hashes.Add(1)
	for {
		peak := p.peak.Load()
		if n <= peak || p.peak.CompareAndSwap(peak, n) {
			return
		}
	}
}
