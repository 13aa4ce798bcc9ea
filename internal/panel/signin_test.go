package panel_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/operators"
	"github.com/platen-print/platen/internal/platentest"
)

// from is a client whose connections leave from ip, a loopback address
// of its own (Linux routes all of 127.0.0.0/8 to the loopback device), so
// that a test can sign in as several networks.
func from(ip string) *http.Client {
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{
		Transport:     &http.Transport{DialContext: dialer.DialContext, MaxIdleConnsPerHost: 64},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// signIn posts the sign-in form and returns the answer's status, its
// Retry-After, and whether it is the limiter's refusal.
func signIn(t *testing.T, c *http.Client, base, email, password string) (code int, retryAfter string, limited bool) {
	t.Helper()
	form := url.Values{"email": {email}, "password": {password}, "next": {"/operator/prints"}}
	resp, err := c.PostForm(base+"/operator/login", form)
	if err != nil {
		t.Errorf("sign-in: %v", err)
		return 0, "", false
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Retry-After"), strings.Contains(string(page), "Too many attempts")
}

// block spends the e-mail's sign-in attempts with six wrong passwords at
// once, from the client given, and returns when the limiter refuses one:
// the attempts are taken as they arrive, before their password checks,
// which are left to end on their own.
func block(t *testing.T, c *http.Client, base, email string) {
	t.Helper()
	refused := make(chan bool, 6)
	for range 6 {
		go func() {
			code, retry, limited := signIn(t, c, base, email, "wrong")
			refused <- code == http.StatusTooManyRequests && limited && retry != ""
		}()
	}
	for range 6 {
		if <-refused {
			return
		}
	}
	t.Fatalf("six wrong passwords at once for %s: none refused by the limit", email)
}

// TestSignInSpellingsShareTheLimit: once an e-mail is refused for too many
// attempts, the same e-mail in other cases or with spaces around it is
// refused too, with the right password and from another network: sign-in
// looks them up as the same account, so they are one bucket.
func TestSignInSpellingsShareTheLimit(t *testing.T) {
	srv := platentest.Start(t, platentest.SQLite())
	staff := srv.Staff(t, "staff@example.com")
	block(t, from("127.0.0.2"), srv.BaseURL, "staff@example.com")
	other := from("127.0.0.3")
	for _, spelling := range []string{"STAFF@example.com", " staff@example.com", "staff@EXAMPLE.com", "Staff@Example.Com\t", "staff@example.com"} {
		code, retry, limited := signIn(t, other, srv.BaseURL, spelling, staff.Password)
		if code != http.StatusTooManyRequests || !limited {
			t.Errorf("%q with the right password after the block: %d, want 429", spelling, code)
		}
		if s, err := strconv.Atoi(retry); err != nil || s < 1 || s > 12 {
			t.Errorf("%q: Retry-After %q, want the seconds to the next attempt", spelling, retry)
		}
	}
	if _, _, limited := signIn(t, other, srv.BaseURL, "ada@example.com", "x"); limited {
		t.Error("another e-mail from the other network was refused by the limit")
	}
}

// TestSignInFloodBoundsPasswordMemory: 20 sign-ins at once with unknown
// e-mails (each a 64 MiB password check) grow the heap by far less than
// 20 × 64 MiB, as at most two checks run at once; each is answered 401,
// or 429 with Retry-After and the sign-in page's message, never a 5xx.
func TestSignInFloodBoundsPasswordMemory(t *testing.T) {
	srv := platentest.Start(t, platentest.SQLite())
	runtime.GC()
	before := heapObjects()
	ctx, stop := context.WithCancel(t.Context())
	peak := make(chan uint64)
	go func() { peak <- samplePeak(ctx) }()

	c := from("127.0.0.5")
	var wg sync.WaitGroup
	codes := make(chan int, 20)
	for i := range 20 {
		wg.Go(func() {
			form := url.Values{"email": {"nobody" + strconv.Itoa(i) + "@example.com"}, "password": {"guess"}}
			resp, err := c.PostForm(srv.BaseURL+"/operator/login", form)
			if err != nil {
				t.Errorf("sign-in: %v", err)
				return
			}
			defer resp.Body.Close()
			page, _ := io.ReadAll(resp.Body)
			if resp.StatusCode == http.StatusTooManyRequests &&
				(resp.Header.Get("Retry-After") != "1" || !strings.Contains(string(page), "try again in a moment")) {
				t.Errorf("429 with Retry-After %q: %s", resp.Header.Get("Retry-After"), page)
			}
			codes <- resp.StatusCode
		})
	}
	wg.Wait()
	stop()
	close(codes)
	growth := int64(<-peak) - int64(before)
	t.Logf("heap grew by at most %d MiB; password hashes: %+v", growth>>20, operators.Passwords())
	for code := range codes {
		if code != http.StatusUnauthorized && code != http.StatusTooManyRequests {
			t.Errorf("an answer %d, want 401 or 429", code)
		}
	}
	if growth > 512<<20 {
		t.Errorf("the heap grew by %d MiB for 20 sign-ins; one password check at a time takes 64 MiB", growth>>20)
	}
	if p := operators.Passwords().Peak; p > 1 {
		t.Errorf("%d password checks ran at once, want at most 1", p)
	}
}

const heapMetric = "/memory/classes/heap/objects:bytes"

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// samplePeak is the most the heap's objects took until ctx ends.
func samplePeak(ctx context.Context) uint64 {
	var peak uint64
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		peak = max(peak, heapObjects())
		select {
		case <-ctx.Done():
			return peak
		case <-tick.C:
		}
	}
}
