package bench

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/platen-print/platen/bench/loadgen"
)

// maxOrdersInFlight bounds the order POSTs outstanding at once. The sender
// is open-loop (the rate does not follow the server's answers, as shops'
// orders do not); this only keeps a stalled server from piling up
// goroutines.
const maxOrdersInFlight = 64

// sendResult is what the order sender saw.
type sendResult struct {
	// prints counts the prints of every order accepted, warmup included:
	// the webhooks the receiver may wait for.
	prints int
	// latency holds the POSTs started inside the window, sorted; errors
	// counts failed POSTs anywhere, firstErr describes the first.
	latency  []time.Duration
	errors   int
	firstErr string
}

// sendOrders posts Family B orders of lines lines to e at ordersPerSec, on
// a fixed schedule from start until to; POSTs started from from on are
// timed.
func sendOrders(ctx context.Context, e *env, ordersPerSec float64, lines int, start, from, to time.Time) sendResult {
	client := &http.Client{Transport: loadgen.NewTransport(maxOrdersInFlight), Timeout: loadgen.DefaultTimeout}
	defer client.CloseIdleConnections()
	interval := time.Duration(float64(time.Second) / ordersPerSec)
	var (
		mu  sync.Mutex
		res sendResult
		wg  sync.WaitGroup
	)
	slots := make(chan struct{}, maxOrdersInFlight)
	for i := 0; ; i++ {
		// The schedule is start + i×interval, so a late send does not
		// shift the ones after it.
		at := start.Add(time.Duration(i) * interval)
		if !at.Before(to) || sleepUntil(ctx, at) != nil {
			break
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		body := shopOrderBody(fmt.Sprintf("%s-so-%d", e.run, i), lines)
		wg.Go(func() {
			defer func() { <-slots }()
			begin := time.Now()
			err := e.call(ctx, client, http.MethodPost, "/v1/shop/orders", body, nil)
			took := time.Since(begin)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				res.errors++
				if res.firstErr == "" {
					res.firstErr = err.Error()
				}
			default:
				res.prints += lines
				if !begin.Before(from) {
					res.latency = append(res.latency, took)
				}
			}
		})
	}
	wg.Wait()
	slices.Sort(res.latency)
	return res
}
