package platentest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/platentest/poll"
)

// PrintTimeout bounds WaitPrint: a render in its own process, under -race,
// on two cores that other tests share.
const PrintTimeout = 60 * time.Second

// Print statuses: received and processing come first, the other two are
// where a render ends.
const (
	PrintReady  = "ready"
	PrintFailed = "processingfailed"
)

// followJobs notifies s.jobEnded whenever one of the server's jobs ends,
// until the server's queue stops or the test ends.
func (s *Server) followJobs(t testing.TB) {
	events, stop := s.JobEnds()
	t.Cleanup(stop)
	go func() {
		for range events {
			s.jobEnded.Notify()
		}
	}()
}

// JobEnded is notified whenever one of the server's jobs (a render, a
// webhook delivery, a batch, a clean-up) ends, its outcome recorded: what
// it changed can be read from then on.
func (s *Server) JobEnded() *poll.Signal { return s.jobEnded }

// WaitFor checks cond until it holds, failing the test, naming what, when
// it has not within the given time. It checks again as soon as one of the
// server's jobs ends, and otherwise after a pause that grows from a
// millisecond (see poll), so that a change no job makes is seen too.
func (s *Server) WaitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	poll.UntilSignalled(t, within, what, s.jobEnded, cond)
}

// WaitPrint waits until the print of a Family A order item has one of the
// statuses want, or either status a render ends in when want is empty,
// and returns the print as GET /api/v1/order-items/{id}/print answers it.
// A render that ended in a status not wanted fails the test at once; so
// does no wanted status within PrintTimeout.
func (s *Server) WaitPrint(t *testing.T, token, itemID string, want ...string) map[string]any {
	t.Helper()
	return s.WaitPrintWithin(t, PrintTimeout, token, itemID, want...)
}

// WaitPrintWithin is WaitPrint with a time of the test's own.
func (s *Server) WaitPrintWithin(t *testing.T, within time.Duration, token, itemID string, want ...string) map[string]any {
	t.Helper()
	return waitPrint(t, within, itemID, want, s.jobEnded, func() map[string]any {
		r := s.Do(t, "GET", printPath(itemID), token, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("print of %s: %d %s", itemID, r.Status, r.Raw)
		}
		return r.Object(t)
	})
}

// WaitPrintAt is WaitPrintWithin for a server these helpers did not
// start (a `platen serve` process at baseURL), whose jobs it cannot
// follow: it polls alone.
func WaitPrintAt(t *testing.T, within time.Duration, baseURL, token, itemID string, want ...string) map[string]any {
	t.Helper()
	return waitPrint(t, within, itemID, want, nil, func() map[string]any {
		req, err := http.NewRequest("GET", baseURL+printPath(itemID), nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("print of %s: %v", itemID, err)
		}
		defer resp.Body.Close()
		var got map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("print of %s: %d, %v", itemID, resp.StatusCode, err)
		}
		return got
	})
}

func printPath(itemID string) string {
	return "/api/v1/order-items/" + url.PathEscape(itemID) + "/print"
}

// waitPrint asks get for the print until its status is wanted, looking
// again when changed (if not nil) is notified.
func waitPrint(t testing.TB, within time.Duration, itemID string, want []string, changed *poll.Signal, get func() map[string]any) map[string]any {
	t.Helper()
	if len(want) == 0 {
		want = []string{PrintReady, PrintFailed}
	}
	var got map[string]any
	held := poll.Within(within, changed, func() bool {
		got = get()
		status, _ := got["status"].(string)
		return status == PrintReady || status == PrintFailed || slices.Contains(want, status)
	})
	status, _ := got["status"].(string)
	switch {
	case !held:
		t.Fatalf("print of %s still %s after %v, want %v", itemID, status, within, want)
	case !slices.Contains(want, status):
		t.Fatalf("print of %s ended %s, want %v: %v", itemID, status, want, got)
	}
	return got
}

// WaitShopOrder waits until no print of a Family B order (by reference
// number or external id) is processing, and returns the order (the
// answer's data); it fails the test when one still is after PrintTimeout.
func (s *Server) WaitShopOrder(t *testing.T, token, ref string) map[string]any {
	t.Helper()
	var order map[string]any
	s.WaitFor(t, PrintTimeout, "the prints of shop order "+ref, func() bool {
		r := s.Do(t, "GET", "/v1/shop/orders/"+url.PathEscape(ref), token, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("shop order %s: %d %s", ref, r.Status, r.Raw)
		}
		order, _ = r.Object(t)["data"].(map[string]any)
		lines, _ := order["lines"].([]any)
		for _, l := range lines {
			prints, _ := l.(map[string]any)["prints"].([]any)
			for _, p := range prints {
				if p.(map[string]any)["status"] == "processing" {
					return false
				}
			}
		}
		return true
	})
	return order
}
