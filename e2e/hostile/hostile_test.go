package hostile

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
	"github.com/platen-print/platen/internal/procstat"
)

// Bounds of what an attack may cost others, in this suite's runs (race
// detector on, two CPUs shared with the other tests). BENCHMARKS.md
// measures the targets themselves on the built binary.
const (
	maxServerRSS = 1 << 30
	// maxRenderRSS is a render process's bound: 250 MB for the renders
	// the budgets admit, tripled by the race detector's shadow memory.
	maxRenderRSS     = 3 * 250 << 20
	maxHealthzP99    = 500 * time.Millisecond
	otherTeamsReady  = 30 * time.Second
	attackBodyLayers = 50
)

// start is a server on b with renders from loopback images allowed.
func start(t *testing.T, b platentest.Backend, edit func(*config.Config)) *platentest.Server {
	t.Helper()
	return platentest.StartWith(t, b, func(c *config.Config) {
		c.AllowPrivateNetwork = true
		c.RenderWorkers = 1
		if edit != nil {
			edit(c)
		}
	})
}

// cost watches the server while an attack runs: this process's resident
// memory (the server runs in it) and /healthz's latency.
type cost struct {
	stop      chan struct{}
	done      sync.WaitGroup
	mu        sync.Mutex
	peakRSS   int64
	renderRSS int64 // the peak of the render processes (this process's children)
	healthz   []time.Duration
	errors    int
}

func watch(t *testing.T, srv *platentest.Server) *cost {
	t.Helper()
	c := &cost{stop: make(chan struct{})}
	c.done.Add(1)
	go func() {
		defer c.done.Done()
		client := &http.Client{Timeout: 5 * time.Second}
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-c.stop:
				return
			case <-tick.C:
			}
			began := time.Now()
			resp, err := client.Get(srv.BaseURL + "/healthz")
			took := time.Since(began)
			rss, _ := procstat.RSS(os.Getpid())
			var renders int64
			for _, child := range procstat.Children(os.Getpid()) {
				if peak, err := procstat.PeakRSS(child); err == nil {
					renders = max(renders, peak)
				}
			}
			c.mu.Lock()
			c.peakRSS = max(c.peakRSS, rss)
			c.renderRSS = max(c.renderRSS, renders)
			if err != nil || resp.StatusCode != http.StatusOK {
				c.errors++
			} else {
				c.healthz = append(c.healthz, took)
			}
			c.mu.Unlock()
			if err == nil {
				resp.Body.Close()
			}
		}
	}()
	return c
}

// check stops watching and asserts the bounds.
func (c *cost) check(t *testing.T) {
	t.Helper()
	// An attack may be over before the probe has had five answers (a
	// refused render takes milliseconds): the probes go on until then.
	poll.Within(5*time.Second, nil, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.healthz) >= 5
	})
	close(c.stop)
	c.done.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.healthz) < 5 {
		t.Fatalf("/healthz answered %d times while the attack ran (%d failures)", len(c.healthz), c.errors)
	}
	slices.Sort(c.healthz)
	p99 := c.healthz[(len(c.healthz)*99)/100]
	t.Logf("while the attack ran: peak RSS %d MB (render processes %d MB), /healthz p99 %v over %d probes", c.peakRSS>>20, c.renderRSS>>20, p99, len(c.healthz))
	if c.errors > 0 {
		t.Errorf("/healthz failed %d times", c.errors)
	}
	if p99 > maxHealthzP99 {
		t.Errorf("/healthz p99 %v, over %v", p99, maxHealthzP99)
	}
	if c.peakRSS > maxServerRSS {
		t.Errorf("server RSS reached %d MB, over %d MB", c.peakRSS>>20, maxServerRSS>>20)
	}
	if c.renderRSS > maxRenderRSS {
		t.Errorf("a render process reached %d MB, over %d MB", c.renderRSS>>20, maxRenderRSS>>20)
	}
}

// referenceDoc is the other team's order: a small card that renders in
// milliseconds.
const referenceDoc = `{"width":100,"height":60,"bleed":2,"layers":[{"type":"rect","x":5,"y":5,"width":90,"height":50,"fill":"#f2e8d5","radius":3},{"type":"text","text":"Reference","font":"Go-Bold","size":14,"x":10,"y":20,"width":80}]}`

// referenceOrderReady posts the other team's reference order and waits
// for its print to be ready; it returns how long that took.
func referenceOrderReady(t *testing.T, srv *platentest.Server, other platentest.Tenant, id string) time.Duration {
	t.Helper()
	began := time.Now()
	if r := srv.Do(t, "POST", "/api/v1/orders", other.Token, platentest.OrderBody(other.StoreID, id, platentest.PrintFiles(), platentest.Design(referenceDoc))); r.Status != http.StatusOK {
		t.Fatalf("the other team's order: %d %s", r.Status, r.Raw)
	}
	status := srv.WaitPrintWithin(t, otherTeamsReady, other.Token, id+"-1", "ready", "processingfailed")
	if status["status"] != "ready" {
		t.Fatalf("the other team's print: %v", status)
	}
	took := time.Since(began)
	t.Logf("the other team's order was ready %v after its POST", took)
	return took
}

// itemError is the failure reason an order's details give for its item.
func itemError(t *testing.T, srv *platentest.Server, token, orderUID string) string {
	t.Helper()
	r := srv.Do(t, "GET", "/api/v1/orders/"+orderUID, token, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("order details: %d %s", r.Status, r.Raw)
	}
	items, _ := r.Object(t)["items"].([]any)
	if len(items) != 1 {
		t.Fatalf("order details hold %d items", len(items))
	}
	print, _ := items[0].(map[string]any)["print"].(map[string]any)
	reason, _ := print["error"].(string)
	return reason
}

// hugePNG serves testdata/100mp.png: 10,000 × 10,000 grey pixels (100
// megapixels, the most an image may have) in 95 KB.
func hugePNG(t *testing.T) *httptest.Server {
	t.Helper()
	data, err := os.ReadFile("testdata/100mp.png")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// imageLayers is a page of n image layers all drawing src.
func imageLayers(src string, n int) string {
	layers := make([]string, n)
	for i := range layers {
		layers[i] = fmt.Sprintf(`{"type":"image","src":%q,"x":%d,"y":%d,"width":40,"height":40}`, src, i%50, i%30)
	}
	return `{"width":100,"height":80,"layers":[` + strings.Join(layers, ",") + `]}`
}

// heavyDoc is a legitimate but slow design: long wrapped text, rotated,
// layer over layer (about a hundredth of a second a layer without the
// race detector).
func heavyDoc(layers int) string {
	list := make([]string, layers)
	for i := range list {
		text, _ := json.Marshal(strings.Repeat("Heavy text wraps and wraps ", 300))
		list[i] = fmt.Sprintf(`{"type":"text","text":%s,"size":6,"x":2,"y":%d,"width":290,"rotation":%d}`, text, i%200, i*7)
	}
	return `{"width":297,"height":420,"layers":[` + strings.Join(list, ",") + `]}`
}
