package cli_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/image/font/gofont/goregular"
)

// startRender starts `platen render` on addr with args and waits until it
// accepts connections; it returns a function that kills it, which the end
// of the test calls too.
func startRender(t *testing.T, addr string, args ...string) (kill func()) {
	t.Helper()
	cmd := exec.Command(platenBin, append([]string{"render", "--grpc-addr", addr}, args...)...)
	cmd.Env = childEnv()
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	kill = func() {
		_ = cmd.Process.Kill()
		<-done
	}
	t.Cleanup(func() {
		kill()
		if t.Failed() {
			t.Logf("platen render (pid %d) stderr:\n%s", cmd.Process.Pid, stderr.String())
		}
	})
	deadline := time.Now().Add(readyTimeout)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return kill
		}
		select {
		case <-done:
			t.Fatalf("platen render exited: %s", stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("platen render not listening on %s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRenderProcess: `serve --render-addr` renders through a separate
// `platen render`. The design names a font only the render process has
// (its --font-dir), so an in-process render would fail the print. While
// the render process is down, prints wait and retry instead of failing,
// and reach ready once it is back.
func TestRenderProcess(t *testing.T) {
	fontDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(fontDir, "House-Sans.ttf"), goregular.TTF, 0o644); err != nil {
		t.Fatal(err)
	}
	renderAddr := freeAddr(t)
	killRender := startRender(t, renderAddr, "--font-dir", fontDir)

	dataDir := t.TempDir()
	boot := bootstrap(t, nil, "--data-dir", dataDir, "--team", "acme", "--store", "acme-shop")
	srv := serve(t, dataDir, "--render-addr", renderAddr)

	order := func(id string) {
		t.Helper()
		doc := `{"width":100,"height":50,"layers":[{"type":"text","text":"Platen","font":"House-Sans","size":14,"x":5,"y":5,"width":90}]}`
		body, _ := json.Marshal(map[string]any{
			"store_id": "acme-shop", "ecommerce_order_id": id, "create_print_files": true,
			"items": []map[string]any{{
				"ecommerce_order_item_id": id + "-1", "ecommerce_variant_id": "v", "quantity": 1,
				"thumbnails":      []string{"https://example.com/thumb.png"},
				"template_config": url.QueryEscape(doc),
			}},
		})
		if r := do(t, "POST", srv.baseURL+"/api/v1/orders", boot.Token, string(body)); r.status != http.StatusOK {
			t.Fatalf("create order %s: %d %s", id, r.status, r.body)
		}
	}
	status := func(id string) map[string]any {
		t.Helper()
		r := do(t, "GET", fmt.Sprintf("%s/api/v1/order-items/%s-1/print", srv.baseURL, id), boot.Token, "")
		if r.status != http.StatusOK {
			t.Fatalf("print status: %d %s", r.status, r.body)
		}
		return r.object(t)
	}
	waitReady := func(id string, within time.Duration) {
		t.Helper()
		deadline := time.Now().Add(within)
		for {
			st := status(id)
			if st["status"] == "ready" {
				return
			}
			if st["status"] == "processingfailed" || time.Now().After(deadline) {
				t.Fatalf("order %s: print %v", id, st)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	order("1")
	waitReady("1", readyTimeout)

	// The render process goes away: the next print is retried, not failed.
	killRender()
	order("2")
	time.Sleep(3 * time.Second) // past the first retry (2 s)
	if st := status("2"); st["status"] == "ready" || st["status"] == "processingfailed" {
		t.Fatalf("with no render process, the print is %v", st)
	}
	startRender(t, renderAddr, "--font-dir", fontDir)
	waitReady("2", 40*time.Second) // the next retry comes 10 s after the last
}
