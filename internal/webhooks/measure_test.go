package webhooks_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
	"github.com/platen-print/platen/internal/queue"
	"github.com/platen-print/platen/internal/webhooks"
)

// MeasureEnv turns on TestMeasureHungStore, which takes minutes.
const measureEnv = "PLATEN_MEASURE_WEBHOOKS"

// TestMeasureHungStore measures, with the limits platen serve uses, what a
// hung endpoint with 600 deliveries pending costs the others: another
// store's latency from order to webhook (one order every 2 s), and how
// often the hung store's jobs are fetched from the database (attempts,
// and postponements), over 90 s. It reports figures and asserts only that
// nothing is lost. Run it with PLATEN_MEASURE_WEBHOOKS=1 and -v.
func TestMeasureHungStore(t *testing.T) {
	if os.Getenv(measureEnv) == "" {
		t.Skipf("set %s=1 to measure (a few minutes)", measureEnv)
	}
	platentest.EachBackendInTurn(t, func(t *testing.T, b platentest.Backend) {
		hung := newEndpoint(t, 0)
		arrivals := platentest.NewReceiver(t, platentest.Answering(http.StatusNoContent))
		srv := platentest.StartWith(t, b, func(c *config.Config) { c.AllowPrivateNetwork = true })
		tokenA := store(t, srv, "acme", "acme-shop", hung.URL)
		tokenB := store(t, srv, "globex", "globex-shop", arrivals.URL)
		order(t, srv, tokenA, "A-1", 300)
		order(t, srv, tokenA, "A-2", 300)
		poll.Until(t, 5*time.Minute, "A's 600 deliveries written", func() bool {
			return count(t, srv, `SELECT COUNT(*) FROM webhook_deliveries WHERE store_id = 'acme-shop'`) == 600
		})
		fetched0, cpu0, start := jobFetches(t, srv), cpuTime(), time.Now()

		var latencies, queued []time.Duration
		for i := 0; time.Since(start) < 90*time.Second; i++ {
			id := fmt.Sprintf("B-%d", i)
			sent := time.Now()
			order(t, srv, tokenB, id, 1)
			arrived := arrivedAt(t, arrivals, id, 30*time.Second)
			latencies = append(latencies, arrived.Sub(sent))
			queued = append(queued, arrived.Sub(newestCreated(t, srv, tokenB, "globex-shop")))
			time.Sleep(time.Until(sent.Add(2 * time.Second)))
		}
		window := time.Since(start)
		fetched, cpu := jobFetches(t, srv)-fetched0, cpuTime()-cpu0
		_, attempts, most := hung.counts()
		t.Logf("%s, over %v: B's order → webhook %s, delivery written → webhook %s (%d orders); "+
			"A's jobs fetched %d times (%.1f/s), A's endpoint sent %d attempts, at most %d at once; the test process used %.2f CPUs",
			b.Name, window.Round(time.Second), percentiles(latencies), percentiles(queued), len(latencies), fetched,
			float64(fetched)/window.Seconds(), attempts, most, cpu.Seconds()/window.Seconds())

		hung.set(http.StatusNoContent)
		poll.Until(t, 5*time.Minute, "A's deliveries all delivered", func() bool {
			return len(deliveries(t, srv, tokenA, "acme-shop", "&status=pending")) == 0
		})
		if failed := deliveries(t, srv, tokenA, "acme-shop", "&status=failed"); len(failed) != 0 {
			t.Errorf("%d of A's deliveries failed", len(failed))
		}
		t.Logf("%s: A's 600 delivered %v after its endpoint answered again", b.Name, time.Since(start.Add(window)).Round(time.Second))
	})
}

// newestCreated is when the store's newest delivery was written: when
// its print turned ready.
func newestCreated(t *testing.T, srv *platentest.Server, token, storeID string) time.Time {
	t.Helper()
	list := deliveries(t, srv, token, storeID, "")
	at, err := time.Parse(time.RFC3339Nano, fmt.Sprint(list[0]["created_at"]))
	if err != nil {
		t.Fatalf("created_at %v", list[0]["created_at"])
	}
	return at
}

// percentiles formats the p50, p90 and max of ds (sorted in place).
func percentiles(ds []time.Duration) string {
	slices.Sort(ds)
	at := func(q float64) time.Duration { return ds[int(q*float64(len(ds)-1))].Round(time.Millisecond) }
	return fmt.Sprintf("p50 %v, p90 %v, max %v", at(0.5), at(0.9), ds[len(ds)-1].Round(time.Millisecond))
}

// jobFetches is how many times delivery jobs have been fetched and put
// back: each postponement (a retry or a wait for its turn) is counted in
// the job (queue.Snoozes).
func jobFetches(t *testing.T, srv *platentest.Server) int {
	t.Helper()
	n := 0
	for _, job := range srv.Jobs(t, webhooks.DeliverKind) {
		n += queue.Snoozes(job)
	}
	return n
}

// count runs a query of one number on the server's database.
func count(t *testing.T, srv *platentest.Server, query string) int {
	t.Helper()
	var n int
	if err := srv.DB().JobPool().QueryRowContext(context.Background(), query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// cpuTime is the CPU time this process (server and test alike) has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// arrivedAt is when the first webhook of the order reached rcv, waiting
// for it.
func arrivedAt(t *testing.T, rcv *platentest.Receiver, orderID string, within time.Duration) time.Time {
	t.Helper()
	var at time.Time
	poll.UntilSignalled(t, within, orderID+"'s webhook", rcv.Arrived(), func() bool {
		for _, d := range rcv.Deliveries() {
			if d.Event()["order_external_id"] == orderID {
				at = d.At
				return true
			}
		}
		return false
	})
	return at
}
