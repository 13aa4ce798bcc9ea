package auth

import (
	"context"
	"errors"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/platen-print/platen/internal/apierr"
)

// RevocationDelay is the longest a revoked token keeps working in any
// process (the API allows 5 s): a cached answer is trusted this long.
const RevocationDelay = 3 * time.Second

// maxCached bounds the cache so that a flood of random tokens cannot grow it
// without limit; past it the cache starts over.
const maxCached = 100_000

// TokenLookup finds the live (not revoked) token with this hash. It returns an
// error matching apierr.ErrNotFound for unknown and revoked tokens.
type TokenLookup interface {
	LookupToken(ctx context.Context, hash []byte) (Principal, error)
}

// Authenticator turns bearer tokens into Principals. Answers, good and bad,
// are cached for RevocationDelay, so a busy token costs one database read
// every few seconds, and a revocation takes effect everywhere within it.
type Authenticator struct {
	lookup TokenLookup
	now    func() time.Time
	// limits is nil when no rate limit is set.
	limits *RateLimiter

	mu    sync.RWMutex
	cache map[string]cachedAnswer
	group singleflight.Group
}

type cachedAnswer struct {
	principal Principal
	err       error
	expires   time.Time
}

// NewAuthenticator returns an Authenticator reading tokens through lookup.
func NewAuthenticator(lookup TokenLookup) *Authenticator {
	return &Authenticator{lookup: lookup, now: time.Now, cache: make(map[string]cachedAnswer)}
}

// WithRateLimit makes the interceptor answer 429 past l's rate.
func (a *Authenticator) WithRateLimit(l *RateLimiter) *Authenticator {
	a.limits = l
	return a
}

// Authenticate returns the Principal of token, or a 401 error; or ctx's
// error when ctx ends while the token is read from the database.
func (a *Authenticator) Authenticate(ctx context.Context, token string) (Principal, error) {
	hash := string(HashToken(token))
	now := a.now()
	a.mu.RLock()
	answer, ok := a.cache[hash]
	a.mu.RUnlock()
	if ok && now.Before(answer.expires) {
		return answer.principal, answer.err
	}
	// The caller waits for the read at most as long as ctx lives; the read
	// itself goes on, and its answer is cached for the next call.
	calls := a.group.DoChan(hash, func() (any, error) {
		return a.refresh(ctx, hash, now)
	})
	select {
	case r := <-calls:
		if r.Err != nil {
			return Principal{}, r.Err
		}
		answer = r.Val.(cachedAnswer)
		return answer.principal, answer.err
	case <-ctx.Done():
		return Principal{}, ctx.Err()
	}
}

// refresh reads the token from the database and caches the answer. Only a
// definite answer (found, or not found) is cached; a database failure is not.
func (a *Authenticator) refresh(ctx context.Context, hash string, now time.Time) (cachedAnswer, error) {
	p, err := a.lookup.LookupToken(context.WithoutCancel(ctx), []byte(hash))
	if err != nil && !errors.Is(err, apierr.ErrNotFound) {
		return cachedAnswer{}, err
	}
	answer := cachedAnswer{principal: p, expires: now.Add(RevocationDelay)}
	if err != nil {
		answer.err = apierr.Unauthenticated("unknown or revoked token")
	}
	a.mu.Lock()
	if len(a.cache) >= maxCached {
		a.cache = make(map[string]cachedAnswer)
	}
	a.cache[hash] = answer
	a.mu.Unlock()
	return answer, nil
}
