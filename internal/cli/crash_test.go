package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
)

// slowImages serves a small JPEG after delay, counting requests: renders
// that fetch from it stay in flight long enough to be killed.
func slowImages(t *testing.T, delay time.Duration) (*httptest.Server, *imageHits) {
	t.Helper()
	return heldImages(t, func(ctx context.Context) bool {
		select {
		case <-time.After(delay):
			return true
		case <-ctx.Done():
			return false
		}
	})
}

// heldImages serves a small JPEG once hold, given the request's context,
// lets it (true), counting requests as they come.
func heldImages(t *testing.T, hold func(context.Context) bool) (*httptest.Server, *imageHits) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for i := range img.Pix {
		img.Pix[i] = 200
	}
	img.Set(1, 1, color.Black)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	hits := &imageHits{paths: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.add(r.URL.Path)
		if !hold(r.Context()) {
			return
		}
		w.Header().Set("Content-Type", "image/jpeg")
		_, _ = w.Write(buf.Bytes())
	}))
	t.Cleanup(srv.Close)
	return srv, hits
}

// imageHits counts an image server's requests, in all and by path.
type imageHits struct {
	mu    sync.Mutex
	total int
	paths map[string]int
}

func (h *imageHits) add(path string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.total++
	h.paths[path]++
}

// Load is how many requests came.
func (h *imageHits) Load() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.total
}

// Of is how many requests came for path.
func (h *imageHits) Of(path string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.paths[path]
}

// renderedOrder is an order of one item whose design fetches src.
func renderedOrder(storeID, orderID, src string) string {
	doc := fmt.Sprintf(`{"width":100,"height":50,"bleed":1,"layers":[{"type":"image","src":%q,"x":0,"y":0,"width":100,"height":50},{"type":"text","text":"order %s","x":5,"y":20,"size":12}]}`, src, orderID)
	return jsonOf(platentest.OrderBody(storeID, orderID, platentest.PrintFiles(), platentest.Design(doc)))
}

// printStatuses reads the print status of items "1-1" … "n-1".
func printStatuses(t *testing.T, s *server, token string, n int) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for i := 1; i <= n; i++ {
		r := do(t, "GET", fmt.Sprintf("%s/api/v1/order-items/%d-1/print", s.baseURL, i), token, "")
		if r.status != http.StatusOK {
			t.Fatalf("print status of %d-1: %d %s", i, r.status, r.body)
		}
		status, _ := r.object(t)["status"].(string)
		counts[status]++
	}
	return counts
}

// TestCrashLosesNoRender kills `platen serve` (SIGKILL) while renders are
// in flight and others wait, restarts it on the same data, and shows every
// item reaching ready: jobs are committed with their orders, and the
// restart resumes the ones the crash interrupted instead of leaving them
// in processing.
func TestCrashLosesNoRender(t *testing.T) {
	t.Parallel() // each test runs processes of its own
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		var dbFlags []string
		if databaseURL := b.NewDatabaseURL(t); databaseURL != "" {
			dbFlags = []string{"--database-url", databaseURL}
		}
		crashAndResume(t, dbFlags)
	})
}

func crashAndResume(t *testing.T, dbFlags []string) {
	const orders = 12
	images, hits := slowImages(t, 300*time.Millisecond)
	dataDir := t.TempDir()
	flags := append([]string{"--data-dir", dataDir}, dbFlags...)
	boot := bootstrap(t, nil, append(flags, "--team", "acme", "--store", "acme-shop")...)
	serveFlags := append([]string{"--allow-private-network", "--render-workers", "2"}, dbFlags...)

	first := serve(t, dataDir, serveFlags...)
	for i := 1; i <= orders; i++ {
		body := renderedOrder("acme-shop", fmt.Sprint(i), fmt.Sprintf("%s/photo-%d.jpg", images.URL, i))
		if r := do(t, "POST", first.baseURL+"/api/v1/orders", boot.Token, body); r.status != http.StatusOK {
			t.Fatalf("create order %d: %d %s", i, r.status, r.body)
		}
	}
	// Kill it once renders are under way: some done, some in flight.
	var counts map[string]int
	if !poll.Within(30*time.Second, nil, func() bool {
		counts = printStatuses(t, first, boot.Token, orders)
		return counts["processing"] > 0 && counts["ready"] > 0 || counts["ready"] == orders
	}) || counts["ready"] == orders {
		t.Fatalf("no moment with renders in flight: %v", counts)
	}
	t.Logf("killed with %v (%d image requests so far)", counts, hits.Load())
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-first.done

	second := serve(t, dataDir, serveFlags...)
	if !poll.Within(60*time.Second, nil, func() bool {
		counts = printStatuses(t, second, boot.Token, orders)
		return counts["ready"] == orders || counts["processingfailed"] > 0
	}) || counts["ready"] != orders {
		t.Fatalf("after the restart: %v", counts)
	}
	// A file rendered before the crash downloads through the new process.
	r := do(t, "GET", second.baseURL+"/api/v1/order-items/1-1/print", boot.Token, "")
	link, _ := r.object(t)["url"].(string)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("download link after the restart: %d", resp.StatusCode)
	}
	file, err := http.Get(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	file.Body.Close()
	if file.StatusCode != http.StatusOK || file.Header.Get("Content-Type") != "application/pdf" {
		t.Fatalf("file after the restart: %d %s", file.StatusCode, file.Header.Get("Content-Type"))
	}
}
