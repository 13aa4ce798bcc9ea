package platentest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/platentest/poll"
)

// Delivery is one request a Receiver took.
type Delivery struct {
	Method string
	// Path is the request's URI: its path and query.
	Path   string
	Header http.Header
	Body   []byte
	At     time.Time
}

// JSON is the body decoded (nil when it is not JSON).
func (d Delivery) JSON() any {
	var v any
	_ = json.Unmarshal(d.Body, &v)
	return v
}

// Event is the body as a JSON object (nil when it is not one), as a
// webhook's event is.
func (d Delivery) Event() map[string]any {
	e, _ := d.JSON().(map[string]any)
	return e
}

// Receiver is a webhook endpoint on 127.0.0.1 that keeps every request
// and answers 200, or as its options say. Set the server's
// AllowPrivateNetwork for its deliveries to reach it.
type Receiver struct {
	*httptest.Server
	t      testing.TB
	first  []int
	status int
	noGets bool
	answer string // the body of every answer

	mu      sync.Mutex
	got     []Delivery
	taken   int
	arrived poll.Signal
}

// ReceiverOption changes how a Receiver answers.
type ReceiverOption func(*Receiver)

// Answering is the status of every answer (after those FirstAnswering
// gives).
func Answering(status int) ReceiverOption {
	return func(r *Receiver) { r.status = status }
}

// AnsweringBody has the receiver answer body with its status.
func AnsweringBody(body string) ReceiverOption {
	return func(r *Receiver) { r.answer = body }
}

// FirstAnswering are the statuses of the first answers, in turn.
func FirstAnswering(statuses ...int) ReceiverOption {
	return func(r *Receiver) { r.first = statuses }
}

// GetsFindNothing answers a GET 404 and does not keep it, so that the
// receiver's URL can stand for an image that is missing.
func GetsFindNothing() ReceiverOption {
	return func(r *Receiver) { r.noGets = true }
}

// NewReceiver starts a Receiver, closed when the test ends.
func NewReceiver(t testing.TB, opts ...ReceiverOption) *Receiver {
	r := &Receiver{t: t, status: http.StatusOK}
	for _, opt := range opts {
		opt(r)
	}
	r.Server = httptest.NewServer(http.HandlerFunc(r.take))
	t.Cleanup(r.Close)
	return r
}

func (r *Receiver) take(w http.ResponseWriter, req *http.Request) {
	if r.noGets && req.Method == http.MethodGet {
		http.NotFound(w, req)
		return
	}
	body, _ := io.ReadAll(req.Body)
	if req.Header.Get("Platen-Event") != "" {
		// Every delivery is held to the document's webhooks section.
		if err := checkWebhook(req.Header, body); err != nil {
			r.t.Errorf("webhook delivery: %v", err)
		}
	}
	d := Delivery{Method: req.Method, Path: req.URL.RequestURI(), Header: req.Header.Clone(), Body: body, At: time.Now()}
	r.mu.Lock()
	r.got = append(r.got, d)
	status := r.status
	if n := len(r.got); n <= len(r.first) {
		status = r.first[n-1]
	}
	r.mu.Unlock()
	r.arrived.Notify()
	w.WriteHeader(status)
	_, _ = io.WriteString(w, r.answer)
}

// Deliveries are the requests taken so far, in the order they came.
func (r *Receiver) Deliveries() []Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Delivery(nil), r.got...)
}

// Arrived is notified whenever the receiver takes a request.
func (r *Receiver) Arrived() *poll.Signal { return &r.arrived }

// Wait waits until the receiver has taken n requests, and returns all it
// has; it fails the test when fewer came within the time given.
func (r *Receiver) Wait(t testing.TB, n int, within time.Duration) []Delivery {
	t.Helper()
	var got []Delivery
	if !poll.Within(within, &r.arrived, func() bool { got = r.Deliveries(); return len(got) >= n }) {
		t.Fatalf("the receiver took %d requests in %v, want %d", len(got), within, n)
	}
	return got
}

// Next is the oldest request Next has not returned yet, waiting for one
// up to the time given; it does not fail the test, for callers that
// report on their own.
func (r *Receiver) Next(within time.Duration) (Delivery, error) {
	var d Delivery
	found := poll.Within(within, &r.arrived, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.taken == len(r.got) {
			return false
		}
		d = r.got[r.taken]
		r.taken++
		return true
	})
	if !found {
		return Delivery{}, fmt.Errorf("no webhook delivery within %s", within)
	}
	return d, nil
}
