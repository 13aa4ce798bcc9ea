package panel_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/operators"
	"github.com/platen-print/platen/internal/platentest"
)

// browserDir holds the browser tests' script and its node_modules
// (`make test-tools` installs them with npm, and Debian's chromium).
const browserDir = "browser"

// TestThePanelInABrowser drives the panel in Debian's chromium with
// playwright-core (browser/panel.test.js): sign-in, a print turning ready
// without a reload, a hostile order id shown as text, a failed print's
// reason, retry, flag and cancel confirmed, a forged POST refused, another
// team out of reach, a phone-sized screen. Screenshots of each page go to
// $PLATEN_SCREENSHOTS when set.
func TestThePanelInABrowser(t *testing.T) {
	chromium := needBrowser(t)
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		release := make(chan struct{})
		slow := heldPNG(t, release)
		srv := platentest.StartWith(t, b, func(c *config.Config) { c.AllowPrivateNetwork = true })
		acme, other := srv.Bootstrap(t, "acme", "acme-shop"), srv.Bootstrap(t, "other", "other-shop")
		staff, err := operators.Create(t.Context(), srv.DB().Operators(), "grace@example.com", "", true, nil)
		if err != nil {
			t.Fatal(err)
		}
		member, err := operators.Create(t.Context(), srv.DB().Operators(), "lin@example.com", "", false, &other.TeamID)
		if err != nil {
			t.Fatal(err)
		}
		hostile := `<img src=x onerror=alert(1)>`
		failed := orderWith(t, srv, acme, hostile, `{"width":50,"height":50,"layers":[{"type":"star"}]}`)
		waitStatus(t, srv, staff.Token, failed, "processingfailed")
		rendering := orderWith(t, srv, acme, "1002", fmt.Sprintf(`{"width":50,"height":50,"layers":[{"type":"image","src":%q,"x":0,"y":0,"width":50,"height":50}]}`, slow.URL+"/p.png"))

		out := os.Getenv("PLATEN_SCREENSHOTS")
		if out == "" {
			out = t.TempDir()
		}
		out = filepath.Join(out, b.Name)
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.CommandContext(t.Context(), "node", "panel.test.js")
		cmd.Dir = browserDir
		cmd.Env = append(os.Environ(), "BASE="+srv.BaseURL, "CHROMIUM="+chromium, "OUT="+out,
			"STAFF_EMAIL="+staff.Email, "STAFF_PASSWORD="+staff.Password, "MEMBER_EMAIL="+member.Email, "MEMBER_PASSWORD="+member.Password,
			"SLOW_PRINT="+rendering, "FAILED_PRINT="+failed, "FAILED_ORDER="+hostile)
		var stdout, stderr bytes.Buffer
		pipe, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		steps := 0
		for sc := bufio.NewScanner(pipe); sc.Scan(); {
			stdout.Write(append(sc.Bytes(), '\n'))
			var step struct {
				Step   string `json:"step"`
				OK     bool   `json:"ok"`
				Detail string `json:"detail"`
			}
			if json.Unmarshal(sc.Bytes(), &step) != nil {
				continue
			}
			steps++
			if step.Step == "watching" {
				close(release) // the page shows the print rendering: let it finish
			}
			if !step.OK {
				t.Errorf("%s: %s", step.Step, step.Detail)
			}
		}
		runErr := cmd.Wait()
		if runErr != nil || steps != 9 {
			t.Fatalf("the browser run: %v, %d of 9 steps reported\n%s\n%s", runErr, steps, stdout.String(), stderr.String())
		}
		for _, shot := range []string{"prints", "print", "actions", "other-team", "phone"} {
			if fi, err := os.Stat(filepath.Join(out, shot+".png")); err != nil || fi.Size() < 1000 {
				t.Errorf("screenshot %s: %v", shot, err)
			}
		}
	})
}

// needBrowser fails the test unless chromium and the script's modules are
// installed, and returns chromium's path.
func needBrowser(t *testing.T) string {
	t.Helper()
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium is not installed (Debian: chromium); `make test` installs it")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not installed; `make test` needs Node.js and npm for the browser tests")
	}
	if _, err := os.Stat(filepath.Join(browserDir, "node_modules", "playwright-core")); err != nil {
		t.Fatal("playwright-core is not installed in internal/panel/browser; `make test` runs npm ci there")
	}
	return chromium
}

// heldPNG serves a small PNG once release is closed: a print fetching it
// renders until then.
func heldPNG(t *testing.T, release <-chan struct{}) *httptest.Server {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 8, 8))); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(buf.Bytes())
	}))
	t.Cleanup(srv.Close)
	return srv
}

// orderWith creates an order of one item of doc, rendering, and returns
// the item's uid.
func orderWith(t *testing.T, srv *platentest.Server, tenant platentest.Tenant, id, doc string) string {
	t.Helper()
	r := srv.Do(t, "POST", "/api/v1/orders", tenant.Token, map[string]any{"store_id": tenant.StoreID, "ecommerce_order_id": id,
		"create_print_files": true, "items": []map[string]any{{"ecommerce_order_item_id": id + "-1", "ecommerce_variant_id": "v", "quantity": 1,
			"template_config": url.QueryEscape(doc), "thumbnails": []string{"https://example.com/t.png"}}}})
	if r.Status != http.StatusOK {
		t.Fatalf("order %s: %d %s", id, r.Status, r.Raw)
	}
	return r.Object(t)["items"].([]any)[0].(map[string]any)["uid"].(string)
}

// waitStatus waits until a print has status, read through the operator API.
func waitStatus(t *testing.T, srv *platentest.Server, token, id, status string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for srv.Do(t, "GET", "/api/v1/operator/prints/"+id, token, nil).Object(t)["status"] != status {
		if time.Now().After(deadline) {
			t.Fatalf("print %s never %s", id, status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
