package panel

import (
	"container/list"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/platen-print/platen/internal/operators"
)

// limiter bounds sign-in attempts by client network and by e-mail, so that
// passwords cannot be guessed at speed; in each process (a few processes
// multiply the rate, not the order of magnitude). Its keys are what the
// attempt would reach: the e-mail as sign-in looks it up, and the client's
// network (see networkKey), so that spelling either differently does not
// buy a fresh bucket.
type limiter struct {
	mu       sync.Mutex
	networks *buckets
	emails   *buckets
}

// Sign-in attempts: 20 at once, then one every 3 s, per network; 5, then
// one every 12 s, per e-mail. Each table keeps maxBuckets keys.
var (
	perNetwork = rate.Every(3 * time.Second)
	perEmail   = rate.Every(12 * time.Second)
)

const maxBuckets = 10_000

func newLimiter() *limiter {
	return &limiter{networks: newBuckets(perNetwork, 20, maxBuckets), emails: newBuckets(perEmail, 5, maxBuckets)}
}

// allow takes an attempt from the network's bucket and then the e-mail's,
// or says how long to wait. The network goes first, so that a network
// over its limit cannot spend the attempts of the e-mails it names.
func (l *limiter) allow(remoteAddr, email string) (retryAfter time.Duration, ok bool) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if wait, ok := take(l.networks.get(networkKey(remoteAddr), now), now); !ok {
		return wait, false
	}
	key, err := operators.NormalizeEmail(email)
	if err != nil {
		// No account has it, and sign-in refuses it before any password
		// check: it needs no bucket of its own.
		return 0, true
	}
	return take(l.emails.get(key, now), now)
}

// take is one attempt from b, or the wait for its next token.
func take(b *rate.Limiter, now time.Time) (time.Duration, bool) {
	if b.AllowN(now, 1) {
		return 0, true
	}
	wait := (1 - b.TokensAt(now)) / float64(b.Limit())
	return time.Duration(wait * float64(time.Second)), false
}

// networkKey is the client's address as a network: an IPv4 address
// itself, IPv4-mapped IPv6 as IPv4, and an IPv6 address by its /64, which
// one customer is given whole (and so has 2⁶⁴ addresses to try from).
func networkKey(remoteAddr string) string {
	ap, err := netip.ParseAddrPort(remoteAddr)
	if err != nil {
		return remoteAddr // not from a TCP socket (a test's recorder)
	}
	ip := ap.Addr().WithZone("").Unmap()
	if ip.Is4() {
		return ip.String()
	}
	p, _ := ip.Prefix(64) // an IPv6 address always has a /64
	return p.String()
}

// buckets is a table of token buckets of at most size keys, least recently
// used first out, that never forgets a key still limited: only a bucket
// that has filled up again may go, which loses nothing, as a new bucket
// starts full. When none may go, keys not in the table share the overflow
// bucket, as limited as one key: a flood of new keys then waits on itself
// and cannot free the keys it is meant to push out.
type buckets struct {
	every    rate.Limit
	burst    int
	size     int
	keys     map[string]*list.Element
	order    *list.List // of *bucket, most recently used first
	overflow *rate.Limiter
}

type bucket struct {
	key string
	*rate.Limiter
}

// evictScan is how many of the least recently used buckets a new key
// looks at for one that has filled up: the oldest have had the longest to
// fill, and a bounded look keeps a flood from costing a scan of the table.
const evictScan = 64

func newBuckets(every rate.Limit, burst, size int) *buckets {
	return &buckets{
		every: every, burst: burst, size: size, keys: map[string]*list.Element{}, order: list.New(),
		overflow: rate.NewLimiter(every, burst),
	}
}

// get is key's bucket: its own, a new one, or the overflow.
func (s *buckets) get(key string, now time.Time) *rate.Limiter {
	if e, ok := s.keys[key]; ok {
		s.order.MoveToFront(e)
		return e.Value.(*bucket).Limiter
	}
	if len(s.keys) >= s.size && !s.evict(now) {
		return s.overflow
	}
	b := &bucket{key: key, Limiter: rate.NewLimiter(s.every, s.burst)}
	s.keys[key] = s.order.PushFront(b)
	return b.Limiter
}

// evict forgets the least recently used bucket that is full again, if
// one of the evictScan oldest is.
func (s *buckets) evict(now time.Time) bool {
	e := s.order.Back()
	for i := 0; e != nil && i < evictScan; i++ {
		b := e.Value.(*bucket)
		if b.TokensAt(now) >= float64(s.burst) {
			s.order.Remove(e)
			delete(s.keys, b.key)
			return true
		}
		e = e.Prev()
	}
	return false
}

// len is how many keys have a bucket of their own.
func (s *buckets) len() int { return len(s.keys) }
