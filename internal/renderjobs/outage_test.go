package renderjobs_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
	"github.com/platen-print/platen/internal/queue"
)

// TestRenderThroughWriteOutage: the database refuses writes while a
// render is in flight, so neither the print's status nor the job's end
// can be written, and the job is left running in the database. Once
// writes come back, the print is ready within seconds (the process puts
// the job back itself), not after River's 3-minute rescue.
func TestRenderThroughWriteOutage(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		var hits atomic.Int64
		asked, answer := make(chan struct{}, 4), make(chan struct{})
		images := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			if hits.Add(1) == 1 {
				asked <- struct{}{}
				<-answer
			}
			w.Header().Set("Content-Type", "image/jpeg")
			_, _ = w.Write(photo(t, 40, 30))
		}))
		defer images.Close()
		srv, fault := platentest.StartWithWriteFault(t, b, func(c *config.Config) { c.AllowPrivateNetwork = true })
		tenant := srv.Bootstrap(t, "acme", "shop-1")
		doc := fmt.Sprintf(`{"width":50,"height":50,"layers":[{"type":"image","src":%q,"x":0,"y":0,"width":50,"height":50}]}`, images.URL+"/a.jpg")
		createOrder(t, srv, tenant.Token, platentest.OrderBody(tenant.StoreID, "outage", platentest.PrintFiles(), platentest.Design(doc)))

		select {
		case <-asked: // the render is under way: its status is processing
		case <-time.After(30 * time.Second):
			t.Fatal("the render never fetched its image")
		}
		fault(t, true)
		close(answer)
		time.Sleep(queue.DefaultReclaimAfter + time.Second)
		if st := printStatus(t, srv, tenant.Token, "outage-1", "processing"); st != "processing" {
			t.Fatalf("during the outage: %s", st)
		}
		fault(t, false)
		cleared := time.Now()
		if st := printStatus(t, srv, tenant.Token, "outage-1", "ready"); st != "ready" {
			t.Fatalf("after the outage: %s", st)
		}
		took := time.Since(cleared)
		t.Logf("ready %v after writes came back (%d image requests)", took.Round(time.Millisecond), hits.Load())
		if took > 10*time.Second {
			t.Errorf("ready %v after writes came back, want within seconds", took)
		}
	})
}

// printStatus polls the item's print status until it is want, for up to
// 20 s, and returns the last one read. Failed reads are read again: the
// first use of a PostgreSQL session the fault ended fails.
func printStatus(t *testing.T, srv *platentest.Server, token, itemID, want string) string {
	t.Helper()
	var status string
	poll.Within(20*time.Second, srv.JobEnded(), func() bool {
		if r := srv.Do(t, "GET", "/api/v1/order-items/"+itemID+"/print", token, nil); r.Status == http.StatusOK {
			status, _ = r.Object(t)["status"].(string)
		}
		return status == want
	})
	return status
}
