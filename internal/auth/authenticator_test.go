package auth

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/platen-print/platen/internal/apierr"
)

// fakeLookup is a TokenLookup over an in-memory table. It counts calls, can
// revoke a token, can fail with a transient error, and can hold every call
// until released.
type fakeLookup struct {
	mu        sync.Mutex
	calls     int
	tokens    map[string]Principal // by string(hash)
	revoked   map[string]bool
	transient error
	release   chan struct{} // when set, every lookup waits for it to close
}

func newFakeLookup() *fakeLookup {
	return &fakeLookup{tokens: map[string]Principal{}, revoked: map[string]bool{}}
}

func (f *fakeLookup) add(token string, p Principal) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tokens[string(HashToken(token))] = p
}

func (f *fakeLookup) revoke(token string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.revoked[string(HashToken(token))] = true
}

func (f *fakeLookup) setTransient(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.transient = err
}

func (f *fakeLookup) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func (f *fakeLookup) LookupToken(_ context.Context, hash []byte) (Principal, error) {
	f.mu.Lock()
	f.calls++
	release := f.release
	f.mu.Unlock()
	if release != nil {
		<-release
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.transient != nil {
		return Principal{}, f.transient
	}
	p, ok := f.tokens[string(hash)]
	if !ok || f.revoked[string(hash)] {
		return Principal{}, apierr.NotFound("token not found")
	}
	return p, nil
}

// fakeClock is the Authenticator's clock, moved only by the test.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newTestAuthenticator(lookup TokenLookup) (*Authenticator, *fakeClock) {
	clock := &fakeClock{t: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
	a := NewAuthenticator(lookup)
	a.now = clock.now
	return a, clock
}

const (
	goodToken    = "plt_good"
	unknownToken = "plt_unknown"
)

var goodPrincipal = Principal{TokenID: 7, TeamID: 3, StoreID: "store-a"}

func TestAuthenticateKnownAndUnknown(t *testing.T) {
	tests := []struct {
		name    string
		token   string
		want    Principal
		wantErr bool
	}{
		{name: "known token", token: goodToken, want: goodPrincipal},
		{name: "unknown token", token: unknownToken, wantErr: true},
		{name: "empty token", token: "", wantErr: true},
		{name: "known token with a trailing character", token: goodToken + "x", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lookup := newFakeLookup()
			lookup.add(goodToken, goodPrincipal)
			a, _ := newTestAuthenticator(lookup)

			got, err := a.Authenticate(context.Background(), tt.token)
			if tt.wantErr {
				if !errors.Is(err, apierr.ErrUnauthenticated) {
					t.Fatalf("Authenticate(%q) error = %v, want one matching apierr.ErrUnauthenticated", tt.token, err)
				}
				if errors.Is(err, apierr.ErrNotFound) {
					t.Errorf("Authenticate(%q) error = %v also matches ErrNotFound: an unknown token must be a 401, not a 404", tt.token, err)
				}
				if got != (Principal{}) {
					t.Errorf("Authenticate(%q) principal = %+v on error, want the zero Principal", tt.token, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Authenticate(%q) error = %v", tt.token, err)
			}
			if got != tt.want {
				t.Errorf("Authenticate(%q) = %+v, want %+v", tt.token, got, tt.want)
			}
		})
	}
}

func TestAuthenticateCachesForRevocationDelay(t *testing.T) {
	// steps are clock advances since the first call, and the total number
	// of lookups expected after a call at that time.
	type step struct {
		at        time.Duration
		wantCalls int
	}
	tests := []struct {
		name    string
		token   string
		wantErr bool
		steps   []step
	}{
		{
			name:  "good answer",
			token: goodToken,
			steps: []step{
				{0, 1}, {0, 1}, {time.Second, 1}, {RevocationDelay - time.Nanosecond, 1},
				{RevocationDelay, 2}, {RevocationDelay + time.Second, 2},
				{2*RevocationDelay - time.Nanosecond, 2}, {2 * RevocationDelay, 3},
			},
		},
		{
			name:    "bad answer",
			token:   unknownToken,
			wantErr: true,
			steps: []step{
				{0, 1}, {0, 1}, {RevocationDelay - time.Nanosecond, 1}, {RevocationDelay, 2},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lookup := newFakeLookup()
			lookup.add(goodToken, goodPrincipal)
			a, clock := newTestAuthenticator(lookup)
			start := clock.now()
			for _, s := range tt.steps {
				clock.advance(start.Add(s.at).Sub(clock.now()))
				p, err := a.Authenticate(context.Background(), tt.token)
				if tt.wantErr {
					if !errors.Is(err, apierr.ErrUnauthenticated) {
						t.Fatalf("at +%v: error = %v, want ErrUnauthenticated", s.at, err)
					}
				} else if err != nil || p != goodPrincipal {
					t.Fatalf("at +%v: Authenticate = %+v, %v; want %+v, nil", s.at, p, err, goodPrincipal)
				}
				if got := lookup.count(); got != s.wantCalls {
					t.Fatalf("at +%v: %d lookups so far, want %d", s.at, got, s.wantCalls)
				}
			}
		})
	}
}

func TestAuthenticateCacheIsPerToken(t *testing.T) {
	lookup := newFakeLookup()
	lookup.add(goodToken, goodPrincipal)
	other := Principal{TokenID: 8, TeamID: 4}
	lookup.add("plt_other", other)
	a, _ := newTestAuthenticator(lookup)

	for i := range 3 {
		if p, err := a.Authenticate(context.Background(), goodToken); err != nil || p != goodPrincipal {
			t.Fatalf("round %d: good token = %+v, %v", i, p, err)
		}
		if p, err := a.Authenticate(context.Background(), "plt_other"); err != nil || p != other {
			t.Fatalf("round %d: other token = %+v, %v", i, p, err)
		}
	}
	if got := lookup.count(); got != 2 {
		t.Errorf("%d lookups for two tokens used three times each, want 2", got)
	}
}

func TestRevokedTokenRefusedWithinRevocationDelay(t *testing.T) {
	if RevocationDelay <= 0 || RevocationDelay >= 5*time.Second {
		t.Fatalf("RevocationDelay = %v, want 0 < delay < 5s (the documented revocation bound)", RevocationDelay)
	}
	tests := []struct {
		name string
		// revokeAfter is how long after the first (cached) call the token
		// is revoked.
		revokeAfter time.Duration
	}{
		{name: "revoked right after being cached", revokeAfter: 0},
		{name: "revoked late in the cache window", revokeAfter: RevocationDelay - time.Millisecond},
		{name: "revoked after a refresh", revokeAfter: RevocationDelay + time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lookup := newFakeLookup()
			lookup.add(goodToken, goodPrincipal)
			a, clock := newTestAuthenticator(lookup)
			ctx := context.Background()

			if _, err := a.Authenticate(ctx, goodToken); err != nil {
				t.Fatalf("before revocation: %v", err)
			}
			clock.advance(tt.revokeAfter)
			if _, err := a.Authenticate(ctx, goodToken); err != nil {
				t.Fatalf("just before revocation: %v", err)
			}
			lookup.revoke(goodToken)
			revokedAt := clock.now()

			// Within RevocationDelay of the revocation the token must be
			// refused: step through the window and expect the refusal no
			// later than revokedAt + RevocationDelay.
			refused := false
			for elapsed := time.Duration(0); elapsed <= RevocationDelay; elapsed += 250 * time.Millisecond {
				clock.advance(revokedAt.Add(elapsed).Sub(clock.now()))
				_, err := a.Authenticate(ctx, goodToken)
				if err == nil {
					if refused {
						t.Fatalf("+%v after revocation: accepted again after having been refused", elapsed)
					}
					continue
				}
				if !errors.Is(err, apierr.ErrUnauthenticated) {
					t.Fatalf("+%v after revocation: error = %v, want ErrUnauthenticated", elapsed, err)
				}
				refused = true
			}
			if !refused {
				t.Fatalf("revoked token still accepted %v after revocation", RevocationDelay)
			}
			// The refusal is itself cached: no further lookups until it expires.
			calls := lookup.count()
			for range 3 {
				if _, err := a.Authenticate(ctx, goodToken); !errors.Is(err, apierr.ErrUnauthenticated) {
					t.Fatalf("revoked token: error = %v, want ErrUnauthenticated", err)
				}
			}
			if got := lookup.count(); got != calls {
				t.Errorf("refusal not cached: %d lookups, want %d", got, calls)
			}
		})
	}
}

func TestTransientLookupErrorIsNotCached(t *testing.T) {
	transient := errors.New("database is unreachable")
	tests := []struct {
		name  string
		token string
		// cachedBefore authenticates the token once, successfully, and lets
		// that answer expire before the database fails.
		cachedBefore bool
	}{
		{name: "never seen token", token: goodToken},
		{name: "token whose cached answer expired", token: goodToken, cachedBefore: true},
		{name: "unknown token", token: unknownToken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lookup := newFakeLookup()
			lookup.add(goodToken, goodPrincipal)
			a, clock := newTestAuthenticator(lookup)
			ctx := context.Background()
			if tt.cachedBefore {
				if _, err := a.Authenticate(ctx, tt.token); err != nil {
					t.Fatal(err)
				}
				clock.advance(RevocationDelay)
			}
			base := lookup.count()

			lookup.setTransient(transient)
			for i := 1; i <= 3; i++ {
				_, err := a.Authenticate(ctx, tt.token)
				if !errors.Is(err, transient) {
					t.Fatalf("call %d during the outage: error = %v, want the lookup's error", i, err)
				}
				if errors.Is(err, apierr.ErrUnauthenticated) {
					t.Fatalf("call %d during the outage: a database failure must not read as a 401: %v", i, err)
				}
				if got := lookup.count() - base; got != i {
					t.Fatalf("call %d during the outage made %d lookups in all, want %d (errors must not be cached)", i, got, i)
				}
			}

			// Once the database is back, the real answer comes through and is
			// cached as usual.
			lookup.setTransient(nil)
			for range 2 {
				_, err := a.Authenticate(ctx, tt.token)
				switch tt.token {
				case goodToken:
					if err != nil {
						t.Fatalf("after the outage: %v", err)
					}
				default:
					if !errors.Is(err, apierr.ErrUnauthenticated) {
						t.Fatalf("after the outage: error = %v, want ErrUnauthenticated", err)
					}
				}
			}
			if got := lookup.count() - base; got != 4 {
				t.Errorf("%d lookups in all after the outage, want 4 (3 failed + 1 cached answer)", got)
			}
		})
	}
}

func TestConcurrentCallsShareOneLookup(t *testing.T) {
	const callers = 20
	transient := errors.New("database is unreachable")
	tests := []struct {
		name      string
		token     string
		transient error
		check     func(Principal, error) error
	}{
		{
			name: "known token", token: goodToken,
			check: func(p Principal, err error) error {
				if err != nil || p != goodPrincipal {
					return fmt.Errorf("got %+v, %v; want %+v, nil", p, err, goodPrincipal)
				}
				return nil
			},
		},
		{
			name: "unknown token", token: unknownToken,
			check: func(_ Principal, err error) error {
				if !errors.Is(err, apierr.ErrUnauthenticated) {
					return fmt.Errorf("error = %v, want ErrUnauthenticated", err)
				}
				return nil
			},
		},
		{
			name: "transient error", token: goodToken, transient: transient,
			check: func(_ Principal, err error) error {
				if !errors.Is(err, transient) {
					return fmt.Errorf("error = %v, want the lookup's error", err)
				}
				return nil
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The bubble makes "every caller is waiting" observable:
			// synctest.Wait returns once the one lookup is blocked on
			// release and the other callers wait on the singleflight call.
			synctest.Test(t, func(t *testing.T) {
				lookup := newFakeLookup()
				lookup.add(goodToken, goodPrincipal)
				lookup.setTransient(tt.transient)
				release := make(chan struct{})
				lookup.release = release
				a, _ := newTestAuthenticator(lookup)

				errs := make([]error, callers)
				var wg sync.WaitGroup
				for i := range callers {
					wg.Go(func() {
						p, err := a.Authenticate(context.Background(), tt.token)
						errs[i] = tt.check(p, err)
					})
				}
				synctest.Wait()
				if got := lookup.count(); got != 1 {
					t.Errorf("%d lookups started by %d concurrent callers, want 1", got, callers)
				}
				close(release)
				wg.Wait()
				for i, err := range errs {
					if err != nil {
						t.Errorf("caller %d: %v", i, err)
					}
				}
				if got := lookup.count(); got != 1 {
					t.Errorf("%d lookups for %d concurrent callers, want 1", got, callers)
				}

				// A transient error was shared but not cached; a definite
				// answer was cached.
				lookup.setTransient(nil)
				wantAfter := 1
				if tt.transient != nil {
					wantAfter = 2
				}
				_, _ = a.Authenticate(context.Background(), tt.token)
				if got := lookup.count(); got != wantAfter {
					t.Errorf("after the shared lookup: %d lookups in all, want %d", got, wantAfter)
				}
			})
		})
	}
}

func TestBearerToken(t *testing.T) {
	tests := []struct {
		header    string
		wantToken string
		wantOK    bool
	}{
		{"Bearer x", "x", true},
		{"bearer x", "x", true},
		{"BEARER  x ", "x", true},
		{"Bearer plt_abc-DEF_123", "plt_abc-DEF_123", true},
		{"bEaReR\u0020tok", "tok", true},
		{"", "", false},
		{"Bearer", "", false},
		{"Bearer ", "", false},
		{"Bearer    ", "", false},
		{"Basic x", "", false},
		{"x", "", false},
		{"Bearerx", "", false},
		{" Bearer x", "", false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.header), func(t *testing.T) {
			got, ok := BearerToken(tt.header)
			if ok != tt.wantOK || (ok && got != tt.wantToken) {
				t.Errorf("BearerToken(%q) = %q, %v; want %q, %v", tt.header, got, ok, tt.wantToken, tt.wantOK)
			}
		})
	}
}

func TestNewToken(t *testing.T) {
	const n = 200
	seen := make(map[string]bool, n)
	for i := range n {
		token, hash, display := NewToken()
		if !strings.HasPrefix(token, TokenPrefix) || TokenPrefix != "plt_" {
			t.Fatalf("token %d = %q, want the prefix plt_", i, token)
		}
		if len(token) <= len(TokenPrefix)+32 {
			t.Errorf("token %d = %q is too short to carry 256 random bits", i, token)
		}
		if seen[token] {
			t.Fatalf("token %d = %q was already returned", i, token)
		}
		seen[token] = true
		if string(hash) != string(HashToken(token)) {
			t.Errorf("token %d: hash %x != HashToken(token) %x", i, hash, HashToken(token))
		}
		if len(hash) != 32 {
			t.Errorf("token %d: hash has %d bytes, want 32 (SHA-256)", i, len(hash))
		}
		if !strings.HasPrefix(token, display) || !strings.HasPrefix(display, TokenPrefix) {
			t.Errorf("token %d: display %q is not a prefix of %q starting with %q", i, display, token, TokenPrefix)
		}
		if len(display) <= len(TokenPrefix) || len(display) >= len(token)/2 {
			t.Errorf("token %d: display %q should show a little of the token, not none or most of it", i, display)
		}
		if strings.ContainsAny(token, "+/=") {
			t.Errorf("token %d = %q is not URL- and header-safe", i, token)
		}
	}
}

func TestHashToken(t *testing.T) {
	// The stored hashes must survive restarts and releases: HashToken is
	// SHA-256 of the token's bytes, checked against known digests
	// (printf plt_a | sha256sum).
	for token, want := range map[string]string{
		"plt_a": "d00e07f5393d234ec451c59aea2fae926aa0599a8902e5ac9afb0bc7b94848f5",
		"plt_b": "6951abae26a1d3bf22c5e444e6180da1bfbd0e01903a88d8d14fedfeecd5ba48",
	} {
		if got := hex.EncodeToString(HashToken(token)); got != want {
			t.Errorf("HashToken(%q) = %s, want %s", token, got, want)
		}
	}
	if bytes.Equal(HashToken("plt_a"), HashToken("plt_b")) {
		t.Error("HashToken gives two tokens the same hash")
	}
}

func TestPrincipalCanUseStore(t *testing.T) {
	teamWide := Principal{TokenID: 1, TeamID: 10}
	bound := Principal{TokenID: 2, TeamID: 10, StoreID: "s1"}
	tests := []struct {
		name        string
		p           Principal
		storeID     string
		storeTeamID int
		want        bool
	}{
		{"team-wide token, own team's store", teamWide, "s1", 10, true},
		{"team-wide token, another own-team store", teamWide, "s2", 10, true},
		{"team-wide token, other team's store", teamWide, "s1", 11, false},
		{"store-bound token, its store", bound, "s1", 10, true},
		{"store-bound token, sibling store", bound, "s2", 10, false},
		{"store-bound token, same store id in another team", bound, "s1", 11, false},
		{"store-bound token, other store of another team", bound, "s2", 11, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.CanUseStore(tt.storeID, tt.storeTeamID); got != tt.want {
				t.Errorf("%+v.CanUseStore(%q, %d) = %v, want %v", tt.p, tt.storeID, tt.storeTeamID, got, tt.want)
			}
		})
	}
}

func TestPrincipalSeesStore(t *testing.T) {
	teamWide := Principal{TokenID: 1, TeamID: 10}
	bound := Principal{TokenID: 2, TeamID: 10, StoreID: "s1"}
	tests := []struct {
		name    string
		p       Principal
		storeID string
		want    bool
	}{
		{"team-wide token sees any store", teamWide, "s1", true},
		{"team-wide token sees another store", teamWide, "s2", true},
		{"store-bound token sees its store", bound, "s1", true},
		{"store-bound token does not see a sibling", bound, "s2", false},
		{"store-bound token does not see store-less data", bound, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.SeesStore(tt.storeID); got != tt.want {
				t.Errorf("%+v.SeesStore(%q) = %v, want %v", tt.p, tt.storeID, got, tt.want)
			}
		})
	}
}
