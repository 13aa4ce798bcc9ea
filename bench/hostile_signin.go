package bench

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
)

// signInSenders is how many sign-ins the flood keeps in flight: each an
// Argon2id check of 64 MiB if nothing bounds them.
const signInSenders = 40

// attackSignIn floods the panel's sign-in with unknown e-mails, each from
// a loopback address of its own (as an attacker with an IPv6 /64 has
// addresses to spare), 40 at once; one more sender keeps guessing the
// password of a staff account, in other cases and with spaces, from one
// address (blocked after five guesses, whatever the spelling).
func attackSignIn(ctx context.Context, h *hostileRun, answers *statusCounts) error {
	if _, err := h.e.admin(ctx, h.e.cmd.Path, "operator", "create", "--email", "staff@example.com", "--staff"); err != nil {
		return err
	}
	var next atomic.Uint32
	flood := &http.Client{Timeout: readyWait, Transport: &http.Transport{
		DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			n := next.Add(1)
			from := net.IPv4(127, byte(1+n>>16%200), byte(n>>8), byte(n))
			return (&net.Dialer{LocalAddr: &net.TCPAddr{IP: from}}).DialContext(ctx, network, addr)
		},
	}}
	variants := []string{"staff@example.com", "STAFF@example.com", " staff@example.com", "staff@EXAMPLE.com", "Staff@Example.Com "}
	guesser := &http.Client{Timeout: readyWait}
	return senders(ctx, signInSenders+1, func(i int) error {
		if i/1_000_000 == signInSenders {
			return h.signIn(ctx, guesser, variants[i%len(variants)], answers)
		}
		return h.signIn(ctx, flood, fmt.Sprintf("nobody-%d@example.com", i), answers)
	})
}

// signIn posts the panel's sign-in form with a wrong password and counts
// the answer; a session won (303) is the attack's error.
func (h *hostileRun) signIn(ctx context.Context, c *http.Client, email string, answers *statusCounts) error {
	form := url.Values{"email": {email}, "password": {"guess"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.e.baseURL+"/operator/login", strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	resp.Body.Close()
	answers.add(resp.StatusCode)
	if resp.StatusCode == http.StatusSeeOther {
		return fmt.Errorf("a wrong password for %q signed in", email)
	}
	return nil
}
