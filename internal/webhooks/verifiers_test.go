package webhooks_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/testtools"
)

// verifiersDir holds receiver.js and the npm packages it verifies with
// (package.json pins them; `make test` runs npm ci there).
const verifiersDir = "verifiers"

// nodeReceiver is verifiers/receiver.js running under node: a webhook
// endpoint that checks every delivery with @octokit/webhooks-methods and
// standardwebhooks, and reports each request as a JSON line.
type nodeReceiver struct {
	URL   string
	stdin io.WriteCloser
	lines chan nodeLine
}

// nodeLine is one line the receiver printed: its port, an acknowledgement
// of secrets, or a request it answered.
type nodeLine struct {
	Port    int               `json:"port"`
	Secrets *int              `json:"secrets"`
	Path    string            `json:"path"`
	Status  int               `json:"status"`
	Checks  []nodeCheck       `json:"checks"`
	Headers map[string]string `json:"headers"`
	Body    []byte            `json:"body"` // base64 in the line
	raw     string
}

// nodeCheck is what the two libraries said of one request with one secret.
type nodeCheck struct {
	Octokit         bool    `json:"octokit"`          // verify(secret, body, Platen-Signature)
	OctokitPrevious bool    `json:"octokit_previous"` // the same with Platen-Signature-Previous
	Standard        bool    `json:"standard"`         // new Webhook(secret).verify(body, headers)
	StandardError   *string `json:"standard_error"`
}

// startNodeReceiver starts the receiver, or skips (fails in CI) when node
// or the npm packages are missing.
func startNodeReceiver(t *testing.T) *nodeReceiver {
	t.Helper()
	testtools.Need(t, "nodejs", "node")
	for _, pkg := range []string{"@octokit/webhooks-methods", "standardwebhooks"} {
		if _, err := os.Stat(filepath.Join(verifiersDir, "node_modules", pkg, "package.json")); err != nil {
			testtools.Missing(t, pkg+" is not installed in internal/webhooks/verifiers: `make test` runs npm ci there when npm is installed")
		}
	}
	cmd := exec.Command("node", "receiver.js")
	cmd.Dir = verifiersDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start node: %v", err)
	}
	r := &nodeReceiver{stdin: stdin, lines: make(chan nodeLine, 64)}
	go func() {
		defer close(r.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var l nodeLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				l.raw = "unreadable line: " + sc.Text()
			} else {
				l.raw = sc.Text()
			}
			r.lines <- l
		}
	}()
	t.Cleanup(func() {
		_ = stdin.Close() // the receiver exits when its stdin ends
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() && stderr.Len() > 0 {
			t.Logf("receiver.js stderr:\n%s", stderr.String())
		}
	})
	first := r.next(t)
	if first.Port == 0 {
		t.Fatalf("receiver.js's first line %q, want its port", first.raw)
	}
	r.URL = fmt.Sprintf("http://127.0.0.1:%d", first.Port)
	return r
}

// next is the receiver's next line; it fails the test after 60 s without one.
func (r *nodeReceiver) next(t *testing.T) nodeLine {
	t.Helper()
	timer := time.NewTimer(60 * time.Second)
	defer timer.Stop()
	select {
	case l, ok := <-r.lines:
		if !ok {
			t.Fatal("receiver.js exited")
		}
		return l
	case <-timer.C:
		t.Fatal("receiver.js printed nothing for 60 s")
	}
	return nodeLine{}
}

// holdSecrets makes the receiver check with these secrets (one receiver
// each) from now on.
func (r *nodeReceiver) holdSecrets(t *testing.T, secrets ...string) {
	t.Helper()
	line, _ := json.Marshal(map[string]any{"secrets": secrets})
	if _, err := r.stdin.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
	if ack := r.next(t); ack.Secrets == nil || *ack.Secrets != len(secrets) {
		t.Fatalf("receiver.js answered %q to the secrets, want their count", ack.raw)
	}
}

// deliveries waits for n requests and returns them.
func (r *nodeReceiver) deliveries(t *testing.T, n int) []nodeLine {
	t.Helper()
	out := make([]nodeLine, n)
	for i := range out {
		if out[i] = r.next(t); out[i].Path == "" {
			t.Fatalf("receiver.js printed %q, want a request", out[i].raw)
		}
	}
	return out
}

// post sends body to the receiver with a delivery's signature headers, as
// someone replaying or altering a delivery would, and returns its answer.
func (r *nodeReceiver) post(t *testing.T, headers map[string]string, body []byte) nodeLine {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, r.URL+"/hooks", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := r.next(t)
	if got.Status != resp.StatusCode {
		t.Fatalf("receiver.js reported %d, answered %d", got.Status, resp.StatusCode)
	}
	return got
}

// shopOrder creates a Family B order of n lines of the sticker: n prints,
// so n print_files.ready deliveries once they render.
func shopOrder(t *testing.T, srv *platentest.Server, token, externalID string, n int) {
	t.Helper()
	lines := make([]any, n)
	for i := range lines {
		lines[i] = map[string]any{"design_version_id": "sticker-v1", "quantity": i + 1}
	}
	if r := srv.Do(t, "POST", "/v1/shop/orders", token, map[string]any{"external_id": externalID, "lines": lines}); r.Status != http.StatusCreated {
		t.Fatalf("create %s: %d %s", externalID, r.Status, r.Raw)
	}
}

// TestInstalledVerifiers: the webhook libraries receivers install verify
// every delivery: @octokit/webhooks-methods' verify with Platen-Signature
// and standardwebhooks' Webhook.verify, both with the store's secret; after
// a rotation, both with the new secret, and a receiver that still holds the
// old one verifies with octokit against Platen-Signature-Previous and with
// standardwebhooks against the multi-signature header. A tampered body is
// refused by both. On every backend.
func TestInstalledVerifiers(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		rcv := startNodeReceiver(t)
		srv, tenant, secret := setup(t, b, rcv.URL)

		rcv.holdSecrets(t, secret)
		shopOrder(t, srv, tenant.Token, "SO-1", 2)
		for _, d := range rcv.deliveries(t, 2) {
			if d.Headers["platen-event"] != "print_files.ready" || d.Path != "/hooks" {
				t.Errorf("delivery %s", d.raw)
			}
			if c := d.Checks[0]; d.Status != http.StatusNoContent || !c.Octokit || !c.Standard || c.OctokitPrevious {
				t.Errorf("before the rotation: %s; want octokit and standardwebhooks to verify it", d.raw)
			}
		}

		r := srv.Do(t, "PUT", "/api/v1/stores/acme-shop/webhook", tenant.Token, map[string]any{"url": rcv.URL + "/hooks", "rotate_secret": true})
		rotated, _ := r.Object(t)["secret"].(string)
		if r.Status != http.StatusOK || rotated == secret || !strings.HasPrefix(rotated, "whsec_") {
			t.Fatalf("rotate: %d %s", r.Status, r.Raw)
		}
		// Two receivers: one that switched to the new secret, one that
		// still has the old.
		rcv.holdSecrets(t, rotated, secret)
		shopOrder(t, srv, tenant.Token, "SO-2", 2)
		var last nodeLine
		for _, d := range rcv.deliveries(t, 2) {
			current, old := d.Checks[0], d.Checks[1]
			if d.Status != http.StatusNoContent {
				t.Errorf("during the rotation: %s; want 204", d.raw)
			}
			if !current.Octokit || !current.Standard {
				t.Errorf("with the new secret: %+v; want octokit (Platen-Signature) and standardwebhooks to verify it", current)
			}
			if old.Octokit || !old.OctokitPrevious || !old.Standard {
				t.Errorf("with the old secret: %+v; want octokit to verify Platen-Signature-Previous only, and standardwebhooks to verify it", old)
			}
			if n := len(strings.Fields(d.Headers["webhook-signature"])); n != 2 {
				t.Errorf("webhook-signature %q: want both secrets' signatures", d.Headers["webhook-signature"])
			}
			last = d
		}
		log := waitLog(t, srv, tenant.Token, func(d map[string]any) bool { return d["status"] == "delivered" })
		if log["last_status_code"] != 204.0 {
			t.Errorf("delivery log %v, want the receiver's 204", log)
		}

		// The same delivery again verifies (so the refusal below is the
		// body's doing); with one byte of the body changed, neither library
		// accepts it with either secret.
		if again := rcv.post(t, last.Headers, last.Body); again.Status != http.StatusNoContent {
			t.Fatalf("the delivery sent again: %s", again.raw)
		}
		tampered := bytes.Replace(last.Body, []byte(`"SO-2"`), []byte(`"SO-3"`), 1)
		if bytes.Equal(tampered, last.Body) {
			t.Fatalf("the delivery's body does not name SO-2: %s", last.Body)
		}
		got := rcv.post(t, last.Headers, tampered)
		if got.Status != http.StatusUnauthorized {
			t.Errorf("a tampered body: %d, want 401", got.Status)
		}
		for i, c := range got.Checks {
			if c.Octokit || c.OctokitPrevious || c.Standard {
				t.Errorf("a tampered body, secret %d: %+v; want every check to refuse it", i, c)
			}
		}
	})
}
