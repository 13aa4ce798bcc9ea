package bench

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// arrival is one webhook delivery as the receiver saw it.
type arrival struct {
	deliveryID, printID string
	// at is when the whole request had been read: the webhook has arrived.
	at time.Time
}

// hookReceiver is the local webhook endpoint of the webhooks suite: it
// notes when each delivery arrives and answers 204 at once, so that the
// time measured is Platen's and not a slow receiver's.
type hookReceiver struct {
	srv *http.Server
	url string

	mu       sync.Mutex
	arrivals []arrival
	// notified holds the prints seen so far, so that the suite can stop
	// waiting once every print it ordered has arrived.
	notified map[string]struct{}
	// bad counts requests that were not a print_files.ready delivery.
	bad int
	// conns counts the connections Platen opened: with fewer than one per
	// delivery, the sender keeps them alive.
	conns atomic.Int64
}

// hookPath is where the receiver listens.
const hookPath = "/hooks"

// startHookReceiver listens on a free loopback port.
func startHookReceiver() (*hookReceiver, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &hookReceiver{url: "http://" + lis.Addr().String() + hookPath}
	r.arrivals, r.notified = make([]arrival, 0, 8192), make(map[string]struct{}, 8192)
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+hookPath, r.serve)
	r.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		ConnState: func(_ net.Conn, state http.ConnState) {
			if state == http.StateNew {
				r.conns.Add(1)
			}
		}}
	go func() {
		if err := r.srv.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			panic(err) // Serve fails only on a broken listener
		}
	}()
	return r, nil
}

// serve notes a delivery. The body's print_id ties it to the print and
// the Platen-Delivery header tells a repeat of the same delivery apart.
func (r *hookReceiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	at := time.Now()
	var event struct {
		Event   string `json:"event"`
		PrintID string `json:"print_id"`
	}
	ok := err == nil && json.Unmarshal(body, &event) == nil && event.Event == "print_files.ready" &&
		event.PrintID != "" && req.Header.Get("Platen-Delivery") != ""
	w.WriteHeader(http.StatusNoContent)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !ok {
		r.bad++
		return
	}
	r.arrivals = append(r.arrivals, arrival{deliveryID: req.Header.Get("Platen-Delivery"), printID: event.PrintID, at: at})
	r.notified[event.PrintID] = struct{}{}
}

// snapshot returns a copy of the arrivals so far and the count of bad
// requests.
func (r *hookReceiver) snapshot() ([]arrival, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]arrival(nil), r.arrivals...), r.bad
}

// prints counts the distinct prints notified so far.
func (r *hookReceiver) prints() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.notified)
}

func (r *hookReceiver) close() error { return r.srv.Close() }
