package panel

import (
	"strconv"
	"testing"
	"time"
)

func TestNetworkKey(t *testing.T) {
	for addr, want := range map[string]string{
		"203.0.113.7:5000":                 "203.0.113.7",
		"[::ffff:203.0.113.7]:5000":        "203.0.113.7",
		"[2001:db8:1:2:aaaa::1]:443":       "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff:ffff:1:2]:443": "2001:db8:1:2::/64",
		"[2001:db8:1:3::1]:443":            "2001:db8:1:3::/64",
		"[fe80::1%eth0]:80":                "fe80::/64",
		"pipe":                             "pipe",
	} {
		if got := networkKey(addr); got != want {
			t.Errorf("networkKey(%q) = %q, want %q", addr, got, want)
		}
	}
}

// TestBlockedKeysSurvivePressure: a table full of keys still in use (or
// blocked) keeps a blocked key blocked through 10,100 new keys, which
// share one overflow bucket as limited as a key; keys whose buckets have
// filled again make room for new ones.
func TestBlockedKeysSurvivePressure(t *testing.T) {
	table := newBuckets(perEmail, 5, maxBuckets)
	now := time.Now()
	blocked := table.get("staff@example.com", now)
	for range 5 {
		take(blocked, now)
	}
	if _, ok := take(table.get("staff@example.com", now), now); ok {
		t.Fatal("the sixth attempt was allowed")
	}
	allowed := 0
	for i := range 10_100 {
		if _, ok := take(table.get("junk"+strconv.Itoa(i)+"@example.com", now), now); ok {
			allowed++
		}
	}
	if _, ok := take(table.get("staff@example.com", now), now); ok {
		t.Error("the blocked key was freed by 10,100 new keys")
	}
	if table.len() != maxBuckets {
		t.Errorf("%d keys kept, want %d", table.len(), maxBuckets)
	}
	if want := maxBuckets - 1 + 5; allowed != want {
		t.Errorf("%d junk attempts allowed, want %d (the table's room, then the overflow's burst)", allowed, want)
	}

	later := now.Add(time.Minute) // every bucket has filled up again
	if _, ok := take(table.get("ada@example.com", later), later); !ok {
		t.Error("a new key had to share the overflow while buckets that had filled up could go")
	}
	if _, ok := table.keys["ada@example.com"]; !ok || table.len() != maxBuckets {
		t.Errorf("the new key has no bucket of its own (%d keys)", table.len())
	}
}

// TestJunkFloodKeepsTheBlock: after an e-mail is blocked, 10,100 sign-ins
// with junk e-mails, each from a network of its own (an attacker with
// IPv6 addresses to spare), which once made the limiter forget every
// bucket, leave it blocked in every spelling.
func TestJunkFloodKeepsTheBlock(t *testing.T) {
	l := newLimiter()
	for i := range 5 {
		if _, ok := l.allow("203.0.113.7:5000", "staff@example.com"); !ok {
			t.Fatalf("attempt %d refused", i+1)
		}
	}
	for i := range 10_100 {
		addr := "[2001:db8:" + strconv.FormatInt(int64(i), 16) + "::1]:443"
		l.allow(addr, "junk"+strconv.Itoa(i)+"@example.com")
	}
	for _, spelling := range []string{"staff@example.com", "STAFF@example.com", " staff@example.com "} {
		if _, ok := l.allow("198.51.100.9:5000", spelling); ok {
			t.Errorf("%q passed the limit after the junk flood", spelling)
		}
	}
}
