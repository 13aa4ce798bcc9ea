package auth

import (
	"sync"

	"golang.org/x/time/rate"

	"github.com/platen-print/platen/internal/apierr"
)

// RateLimiter holds one token bucket per API token, in this process: a
// token may make PerSecond requests a second on average, in bursts of
// Burst. Several processes each allow the rate; the limit guards a process
// against one client's flood, it does not meter a plan.
type RateLimiter struct {
	perSecond rate.Limit
	burst     int
	buckets   sync.Map // token id → *rate.Limiter
}

// NewRateLimiter returns a limiter, or nil (no limit) when perSecond is 0.
func NewRateLimiter(perSecond float64, burst int) *RateLimiter {
	if perSecond <= 0 {
		return nil
	}
	if burst < 1 {
		burst = max(1, int(2*perSecond))
	}
	return &RateLimiter{perSecond: rate.Limit(perSecond), burst: burst}
}

// Allow takes one request from p's bucket, or answers 429.
func (l *RateLimiter) Allow(p Principal) error {
	if l == nil {
		return nil
	}
	b, ok := l.buckets.Load(p.TokenID)
	if !ok {
		b, _ = l.buckets.LoadOrStore(p.TokenID, rate.NewLimiter(l.perSecond, l.burst))
	}
	if !b.(*rate.Limiter).Allow() {
		return apierr.RateLimited("too many requests for this token: at most %g a second, bursts of %d", float64(l.perSecond), l.burst)
	}
	return nil
}
