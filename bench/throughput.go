package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/platen-print/platen/bench/loadgen"
	"github.com/platen-print/platen/internal/render/reference"
)

// rsvgAtOnce is how many rsvg-convert processes the yardstick runs at a
// time: one per core of the 2-core machine the targets were set on.
const rsvgAtOnce = 2

// throughput posts Pages one-item Family A orders from Clients concurrent
// clients, each posting its next order as soon as the last one answered,
// and times from the first POST to the last print's ready (read from the
// prints' histories afterwards, so no polling loads the server meanwhile).
func (b *latencyBench) throughput(ctx context.Context, _ *hookReceiver) error {
	profiled := b.prof.during(ctx, b.db+"-throughput", time.Now(), 3*time.Second, b.logw)
	took, err := b.postAllUntilReady(ctx, "tp", b.Pages)
	<-profiled
	if err != nil {
		return err
	}
	fmt.Fprintf(b.out, "| %s | A: %d pages from %d clients until all ready | %d | %.0f pages/s | | | %.1f s |\n",
		b.db, b.Pages, b.Clients, b.Pages, float64(b.Pages)/took.Seconds(), took.Seconds())
	return nil
}

// againstRSVG times Burst pages through Platen as throughput does, and the
// same pages converted to PDF by rsvg-convert, rsvgAtOnce processes at a
// time, in the same minute.
func (b *latencyBench) againstRSVG(ctx context.Context, _ *hookReceiver) error {
	rs, err := newRSVG(reference.Photo)
	if err != nil {
		return err
	}
	if rs == nil {
		fmt.Fprintf(b.out, "| %s | A: %d pages against rsvg-convert | | rsvg-convert is not installed (apt-get install librsvg2-bin fonts-go) | | | |\n", b.db, b.Burst)
		return nil
	}
	defer rs.close()
	platen, err := b.postAllUntilReady(ctx, "burst", b.Burst)
	if err != nil {
		return err
	}
	yardstick, err := rs.many(ctx, "pdf", b.Burst, rsvgAtOnce)
	if err != nil {
		return err
	}
	fmt.Fprintf(b.out, "| %s | A: %d pages, %d clients, against rsvg-convert (%d at a time) | %d | Platen %.0f ms | rsvg %.0f ms | ratio %.3f | |\n",
		b.db, b.Burst, b.Clients, rsvgAtOnce, b.Burst, millis(platen), millis(yardstick), platen.Seconds()/yardstick.Seconds())
	return nil
}

// postAllUntilReady posts n orders from b.Clients clients and returns the
// time from the first POST to the last print's ready.
func (b *latencyBench) postAllUntilReady(ctx context.Context, tag string, n int) (time.Duration, error) {
	client := &http.Client{Transport: loadgen.NewTransport(b.Clients), Timeout: loadgen.DefaultTimeout}
	defer client.CloseIdleConnections()
	items := make([]string, n)
	var (
		next int64 = -1
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs error
	)
	start := time.Now()
	for range b.Clients {
		wg.Go(func() {
			for i := int(atomic.AddInt64(&next, 1)); i < n; i = int(atomic.AddInt64(&next, 1)) {
				uid, err := b.postOrder(ctx, client, fmt.Sprintf("%s-%s-%d", b.e.run, tag, i))
				if err != nil {
					mu.Lock()
					errs = errors.Join(errs, err)
					mu.Unlock()
					return
				}
				items[i] = uid
			}
		})
	}
	wg.Wait()
	if errs != nil {
		return 0, errs
	}
	var last time.Time
	for _, uid := range items {
		var readyAt time.Time
		if err := b.pollUntil(ctx, uid, func() (bool, error) {
			var err error
			readyAt, err = b.readyAt(ctx, uid)
			return err == nil, nil
		}); err != nil {
			return 0, err
		}
		if readyAt.After(last) {
			last = readyAt
		}
	}
	return last.Sub(start), nil
}

// postOrder posts a one-item order of the reference page with print files
// and returns its item's uid.
func (b *latencyBench) postOrder(ctx context.Context, client *http.Client, orderID string) (string, error) {
	body, err := json.Marshal(familyAOrder(b.e.storeID, orderID, b.config, true))
	if err != nil {
		return "", err
	}
	var answer orderAnswer
	if err := b.e.call(ctx, client, http.MethodPost, "/api/v1/orders", body, &answer); err != nil {
		return "", fmt.Errorf("order POST: %w", err)
	}
	if len(answer.Items) != 1 {
		return "", fmt.Errorf("order POST: %d items in the answer", len(answer.Items))
	}
	return answer.Items[0].UID, nil
}
