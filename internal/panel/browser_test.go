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

	"golang.org/x/image/font/gofont/goregular"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/testtools"
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
	t.Parallel() // a browser test mostly waits (on the page's refreshes, a render): the four overlap
	chromium := needBrowser(t)
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		release := make(chan struct{})
		slow := heldPNG(t, release)
		srv := platentest.StartWith(t, b, func(c *config.Config) { c.AllowPrivateNetwork = true })
		acme, other := srv.Bootstrap(t, "acme", "acme-shop"), srv.Bootstrap(t, "other", "other-shop")
		staff := srv.Staff(t, "grace@example.com")
		member := srv.TeamOperator(t, "lin@example.com", other.TeamID)
		hostile := `<img src=x onerror=alert(1)>`
		failed := orderWith(t, srv, acme, hostile, `{"width":50,"height":50,"layers":[{"type":"text","text":"hi","font":"Nope","size":12}]}`)
		waitStatus(t, srv, staff.Token, failed, "processingfailed")
		pages, _ := twoPageOrder(t, srv, acme)
		waitStatus(t, srv, staff.Token, pages, "ready")
		rendering := orderWith(t, srv, acme, "1002", fmt.Sprintf(`{"width":50,"height":50,"layers":[{"type":"image","src":%q,"x":0,"y":0,"width":50,"height":50}]}`, slow.URL+"/p.png"))

		font := filepath.Join(t.TempDir(), "nope.ttf")
		if err := os.WriteFile(font, goregular.TTF, 0o600); err != nil {
			t.Fatal(err)
		}
		out := runScript(t, b, "panel.test.js", 18, map[string]string{"BASE": srv.BaseURL, "CHROMIUM": chromium,
			"TEAM_ID": fmt.Sprint(acme.TeamID), "FONT_FILE": font,
			"STAFF_EMAIL": staff.Email, "STAFF_PASSWORD": staff.Password, "MEMBER_EMAIL": member.Email, "MEMBER_PASSWORD": member.Password,
			"SLOW_PRINT": rendering, "FAILED_PRINT": failed, "FAILED_ORDER": hostile, "PAGES_PRINT": pages},
			func(step string) {
				if step == "watching" {
					close(release) // the page shows the print rendering: let it finish
				}
			})
		checkScreenshots(t, out, "prints", "print", "actions", "fonts", "fixed", "other-team", "phone", "search", "pages", "pages-zoomed", "order", "pages-phone")
	})
}

// runScript runs a browser script of browserDir with env (and OUT, the
// screenshots' folder, which it returns), failing the test for each step
// reported not ok and unless exactly steps were reported; onStep sees each
// step's name as it is reported.
func runScript(t *testing.T, b platentest.Backend, script string, steps int, env map[string]string, onStep func(string)) string {
	t.Helper()
	out := os.Getenv("PLATEN_SCREENSHOTS")
	if out == "" {
		out = t.TempDir()
	}
	out = filepath.Join(out, b.Name)
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "node", script)
	cmd.Dir = browserDir
	cmd.Env = append(os.Environ(), "OUT="+out)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reported := 0
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
		reported++
		if onStep != nil {
			onStep(step.Step)
		}
		if !step.OK {
			t.Errorf("%s: %s", step.Step, step.Detail)
		}
	}
	if err := cmd.Wait(); err != nil || reported != steps {
		t.Fatalf("%s: %v, %d of %d steps reported\n%s\n%s", script, err, reported, steps, stdout.String(), stderr.String())
	}
	return out
}

// checkScreenshots fails the test unless each named screenshot was taken.
func checkScreenshots(t *testing.T, out string, names ...string) {
	t.Helper()
	for _, shot := range names {
		if fi, err := os.Stat(filepath.Join(out, shot+".png")); err != nil || fi.Size() < 1000 {
			t.Errorf("screenshot %s: %v", shot, err)
		}
	}
}

// needBrowser skips the test (fails it in CI) unless Chromium's headless
// shell, node and the script's modules are installed, and returns the
// shell's path.
func needBrowser(t *testing.T) string {
	t.Helper()
	testtools.Need(t, "chromium-headless-shell", "chromium-headless-shell")
	testtools.Need(t, "nodejs", "node")
	if _, err := os.Stat(filepath.Join(browserDir, "node_modules", "playwright-core")); err != nil {
		testtools.Missing(t, "playwright-core is not installed in internal/panel/browser: `make test` runs npm ci there when npm is installed")
	}
	chromium, _ := exec.LookPath("chromium-headless-shell")
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
	waitStatusWithin(t, srv, token, id, status, 30*time.Second)
}
