package cli_test

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/image/font/gofont/goregular"

	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
)

// startRender starts `platen render` on addr with args and waits until it
// serves; it returns a function that kills it, which the end of the test
// calls too. Should another process hold addr a moment (it was free when
// the test chose it), it tries again.
func startRender(t *testing.T, addr string, args ...string) (kill func()) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		kill, stderr := tryStartRender(t, addr, nil, args...)
		if kill != nil {
			return kill
		}
		if !addrInUse(stderr) || attempt == bindAttempts {
			t.Fatalf("platen render exited (attempt %d): %s", attempt, stderr)
		}
		time.Sleep(time.Second)
	}
}

// startRenderOnFreePort starts `platen render` on a fresh loopback port,
// another one when a process took the port first, and returns its address.
func startRenderOnFreePort(t *testing.T, args ...string) (addr string, kill func()) {
	t.Helper()
	return startRenderWithEnv(t, nil, args...)
}

// startRenderWithEnv is startRenderOnFreePort with PLATEN_* settings in
// the process's environment.
func startRenderWithEnv(t *testing.T, env []string, args ...string) (addr string, kill func()) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		addr = freeAddr(t)
		kill, stderr := tryStartRender(t, addr, env, args...)
		if kill != nil {
			return addr, kill
		}
		if !addrInUse(stderr) || attempt == bindAttempts {
			t.Fatalf("platen render exited (attempt %d): %s", attempt, stderr)
		}
	}
}

// tryStartRender starts `platen render` on addr, with env added to its
// environment, and waits until it serves there; if it exits first, it
// answers a nil kill and the process's stderr.
func tryStartRender(t *testing.T, addr string, env []string, args ...string) (kill func(), stderrText string) {
	t.Helper()
	cmd := exec.Command(platenBin, append(append([]string{"render"}, args...), "--grpc-addr", addr)...)
	cmd.Env = childEnv(env...)
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
	var err error
	exited := false
	if !poll.Within(readyTimeout, nil, func() bool {
		// Serving is its own log line: something else accepting on addr
		// (a process that took the port) does not count.
		var conn net.Conn
		if conn, err = net.DialTimeout("tcp", addr, time.Second); err == nil {
			conn.Close()
			if strings.Contains(stderr.String(), "platen render serving") {
				return true
			}
		}
		select {
		case <-done:
			exited = true
			return true
		default:
			return false
		}
	}) {
		t.Fatalf("platen render not serving on %s: %v; stderr:\n%s", addr, err, stderr.String())
	}
	if exited {
		return nil, stderr.String()
	}
	return kill, ""
}

// TestRenderProcess: `serve --render-addr` renders through a separate
// `platen render`. The design names a font only the render process has
// (its --font-dir), so an in-process render would fail the print. While
// the render process is down, prints wait and retry instead of failing,
// and reach ready once it is back.
func TestRenderProcess(t *testing.T) {
	t.Parallel() // each test runs processes of its own
	fontDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(fontDir, "House-Sans.ttf"), goregular.TTF, 0o644); err != nil {
		t.Fatal(err)
	}
	renderAddr, killRender := startRenderOnFreePort(t, "--font-dir", fontDir)

	dataDir := t.TempDir()
	boot := bootstrap(t, nil, "--data-dir", dataDir, "--team", "acme", "--store", "acme-shop")
	srv := serve(t, dataDir, "--render-addr", renderAddr)

	order := func(id string) {
		t.Helper()
		doc := `{"width":100,"height":50,"layers":[{"type":"text","text":"Platen","font":"House-Sans","size":14,"x":5,"y":5,"width":90}]}`
		body := jsonOf(platentest.OrderBody("acme-shop", id, platentest.PrintFiles(), platentest.Design(doc)))
		if r := do(t, "POST", srv.baseURL+"/api/v1/orders", boot.Token, body); r.status != http.StatusOK {
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
		platentest.WaitPrintAt(t, within, srv.baseURL, boot.Token, id+"-1", platentest.PrintReady)
	}

	order("1")
	waitReady("1", readyTimeout)

	// The render process goes away: the next print is retried, not failed.
	killRender()
	order("2")
	srv.waitLogWithin(t, 30*time.Second, "of a second attempt failed and retried", func(l map[string]any) bool {
		return l["msg"] == "render failed; retrying" && l["attempt"] == 2.0
	})
	if st := status("2"); st["status"] == "ready" || st["status"] == "processingfailed" {
		t.Fatalf("with no render process, after two attempts, the print is %v", st)
	}
	startRender(t, renderAddr, "--font-dir", fontDir)
	waitReady("2", 40*time.Second) // the next retry comes 10 s after the last
}
