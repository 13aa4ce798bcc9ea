package cli_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // to read serve's database as an operator could

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
	"github.com/platen-print/platen/internal/queue"
	"github.com/platen-print/platen/internal/renderjobs"
)

// TestAdminStoreWebhook: `platen admin store webhook` sets a store's URL
// and prints its secret; --rotate-secret replaces the secret, the old one
// signing along for 24 h; a URL that is not http(s) is refused.
func TestAdminStoreWebhook(t *testing.T) {
	t.Parallel() // each test runs processes of its own
	dataDir := t.TempDir()
	boot := bootstrap(t, nil, "--data-dir", dataDir, "--team", "acme", "--store", "acme-shop")
	type endpoint struct {
		StoreID  string     `json:"store_id"`
		URL      string     `json:"url"`
		Secret   string     `json:"secret"`
		Previous *time.Time `json:"previous_secret_expires_at"`
	}
	set := func(args ...string) endpoint {
		t.Helper()
		r := runOK(t, nil, append([]string{"admin", "store", "webhook", "acme-shop", "--data-dir", dataDir}, args...)...)
		var e endpoint
		if err := json.Unmarshal([]byte(r.stdout), &e); err != nil {
			t.Fatalf("%v: %s", err, r.stdout)
		}
		return e
	}
	// Public addresses by IP, so that the check needs no DNS here.
	first := set("--webhook-url", "https://93.184.215.14/hooks")
	if first.StoreID != "acme-shop" || first.URL != "https://93.184.215.14/hooks" || first.Secret != boot.WebhookSecret || first.Previous != nil {
		t.Errorf("set: %+v (bootstrap's secret %s)", first, boot.WebhookSecret)
	}
	rotated := set("--webhook-url", "https://93.184.215.14/hooks2", "--rotate-secret")
	if rotated.Secret == first.Secret || !strings.HasPrefix(rotated.Secret, "whsec_") || rotated.Previous == nil ||
		time.Until(*rotated.Previous) < 23*time.Hour || time.Until(*rotated.Previous) > 25*time.Hour {
		t.Errorf("rotated: %+v", rotated)
	}
	if r := run(t, nil, "admin", "store", "webhook", "acme-shop", "--data-dir", dataDir, "--webhook-url", "ftp://x"); r.code == 0 || !strings.Contains(r.stderr, "http") {
		t.Errorf("ftp URL: exit %d, stderr %s", r.code, r.stderr)
	}
}

// TestWebhookURLRulesAsREST: `platen admin store webhook` accepts and
// refuses the URLs PUT /api/v1/stores/{store_id}/webhook does, refusing
// in the API's words; with --allow-private-network, or
// PLATEN_ALLOW_PRIVATE_NETWORK (the variable serve reads), it accepts what
// a serve started so accepts. bootstrap --webhook-url checks the same.
func TestWebhookURLRulesAsREST(t *testing.T) {
	t.Parallel()
	strict := platentest.Start(t, platentest.SQLite())
	open := platentest.StartWith(t, platentest.SQLite(), func(c *config.Config) { c.AllowPrivateNetwork = true })
	tokens := map[*platentest.Server]string{
		strict: strict.Bootstrap(t, "acme", "acme-shop").Token,
		open:   open.Bootstrap(t, "acme", "acme-shop").Token,
	}
	dataDir := t.TempDir()
	bootstrap(t, nil, "--data-dir", dataDir, "--team", "acme", "--store", "acme-shop")
	// rest answers whether srv accepts url, and if not, its description of
	// what is wrong with the field url.
	rest := func(srv *platentest.Server, url string) (bool, string) {
		t.Helper()
		r := srv.Do(t, "PUT", "/api/v1/stores/acme-shop/webhook", tokens[srv], map[string]any{"url": url})
		if r.Status == http.StatusOK {
			return true, ""
		}
		message, fields := platentest.ErrorBody(t, r, http.StatusBadRequest)
		description, ok := strings.CutPrefix(message, "url: ")
		if !ok || len(fields) != 1 || fields[0] != "url" {
			t.Fatalf("url %q: %q naming %v, want url", url, message, fields)
		}
		return false, description
	}
	modes := []struct {
		name  string
		srv   *platentest.Server
		env   []string
		flags []string
	}{
		{"by default", strict, nil, nil},
		{"--allow-private-network", open, nil, []string{"--allow-private-network"}},
		{"PLATEN_ALLOW_PRIVATE_NETWORK", open, []string{"PLATEN_ALLOW_PRIVATE_NETWORK=true"}, nil},
	}
	urls := []string{
		"http://127.0.0.1:9999/",        // loopback
		"http://10.1.2.3/h",             // private
		"http://169.254.169.254/latest", // the metadata service
		"http://hooks.invalid/h",        // a host that does not resolve
		"ftp://93.184.215.14/h",         // not http
		"https://93.184.215.14:0/h",     // no port to connect to
		"https://93.184.215.14/h",       // public
	}
	for _, m := range modes {
		for _, url := range urls {
			accepted, description := rest(m.srv, url)
			args := append([]string{"admin", "store", "webhook", "acme-shop", "--data-dir", dataDir, "--webhook-url", url}, m.flags...)
			r := run(t, m.env, args...)
			switch {
			case accepted && r.code != 0:
				t.Errorf("%s, %s: the API accepts it, the command refuses it: %v", m.name, url, r)
			case !accepted && r.code == 0:
				t.Errorf("%s, %s: the API refuses it (%s), the command accepts it", m.name, url, description)
			case !accepted && !strings.Contains(r.stderr, "platen: --webhook-url: "+description+"\n"):
				t.Errorf("%s, %s: the command says\n%s\nwant the API's words: %s", m.name, url, r.stderr, description)
			}
		}
	}
	boot := func(flags ...string) result {
		args := []string{"admin", "bootstrap", "--data-dir", dataDir, "--team", "acme", "--store", "acme-shop", "--webhook-url", "http://127.0.0.1:9999/"}
		return run(t, nil, append(args, flags...)...)
	}
	if r := boot(); r.code == 0 || !strings.Contains(r.stderr, "127.0.0.1 is a loopback address") {
		t.Errorf("bootstrap with a loopback webhook URL: %v", r)
	}
	if r := boot("--allow-private-network"); r.code != 0 {
		t.Errorf("bootstrap --allow-private-network with a loopback webhook URL: %v", r)
	}
}

// TestAdminPrintCancel: `platen admin print cancel` cancels a Family B
// print that waits for its render (it never renders: once no render job
// may run, its image was never fetched) and one that is ready (its files
// go); the shop sees cancelled with no files.
func TestAdminPrintCancel(t *testing.T) {
	t.Parallel() // each test runs processes of its own
	gate := make(chan struct{})
	images, hits := heldImages(t, func(ctx context.Context) bool {
		select {
		case <-gate:
			return true
		case <-ctx.Done():
			return false
		}
	})
	dataDir := t.TempDir()
	boot := bootstrap(t, nil, "--data-dir", dataDir, "--team", "acme", "--store", "acme-shop")
	srv := serve(t, dataDir, "--allow-private-network", "--render-workers", "1")
	// A design version per print, each with an image of its own, so that
	// the image server tells which rendered.
	image := func(line int) string { return fmt.Sprintf("/p%d.jpg", line) }
	for line := range 2 {
		doc := fmt.Sprintf(`{"width":50,"height":50,"layers":[{"type":"image","src":%q,"width":50,"height":50}]}`, images.URL+image(line))
		version, _ := json.Marshal(map[string]any{"design_version_id": fmt.Sprint("photo-", line), "template_config": url.QueryEscape(doc)})
		if r := do(t, "POST", srv.baseURL+"/api/v1/design-versions", boot.Token, string(version)); r.status != http.StatusOK {
			t.Fatalf("register: %d %s", r.status, r.body)
		}
	}
	body := `{"external_id":"SO-1","lines":[{"design_version_id":"photo-0","quantity":1},{"design_version_id":"photo-1","quantity":2}]}`
	r := do(t, "POST", srv.baseURL+"/v1/shop/orders", boot.Token, body)
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	printIDs := func(order map[string]any) (ids, statuses []string, files []int) {
		for _, l := range order["data"].(map[string]any)["lines"].([]any) {
			p := l.(map[string]any)["prints"].([]any)[0].(map[string]any)
			ids = append(ids, p["id"].(string))
			statuses = append(statuses, p["status"].(string))
			files = append(files, len(p["files"].([]any)))
		}
		return ids, statuses, files
	}
	ids, _, _ := printIDs(r.object(t))
	cancel := func(id string) {
		t.Helper()
		out := runOK(t, nil, "admin", "print", "cancel", id, "--data-dir", dataDir)
		var got map[string]string
		if err := json.Unmarshal([]byte(out.stdout), &got); err != nil || got["status"] != "cancelled" || got["print_id"] != id {
			t.Fatalf("cancel printed %s (%v)", out.stdout, err)
		}
	}
	// The team renders one print at a time (--render-workers 1): the one
	// whose image is asked for holds its turn until the gate opens, and
	// the other waits.
	poll.Until(t, 30*time.Second, "a render asking for its image", func() bool { return hits.Load() > 0 })
	rendering := 0
	if hits.Of(image(1)) > 0 {
		rendering = 1
	}
	waiting := 1 - rendering
	cancel(ids[waiting])
	close(gate)
	var readyLink string
	var statuses []string
	if !poll.Within(30*time.Second, nil, func() bool {
		order := do(t, "GET", srv.baseURL+"/v1/shop/orders/SO-1", boot.Token, "").object(t)
		var files []int
		_, statuses, files = printIDs(order)
		if statuses[waiting] != "cancelled" || files[waiting] != 0 {
			t.Fatalf("the cancelled print is %s with %d files", statuses[waiting], files[waiting])
		}
		if statuses[rendering] != "ready" {
			return false
		}
		line := order["data"].(map[string]any)["lines"].([]any)[rendering].(map[string]any)
		readyLink = line["prints"].([]any)[0].(map[string]any)["files"].([]any)[0].(map[string]any)["url"].(string)
		return true
	}) {
		t.Fatalf("the rendering print is still %s", statuses[rendering])
	}
	// Once no render job may run any more, the cancelled print has had any
	// turn the cancel left it.
	var unfinished int
	if !poll.Within(30*time.Second, nil, func() bool { unfinished = unfinishedRenders(t, dataDir); return unfinished == 0 }) {
		t.Fatalf("%d render jobs still may run", unfinished)
	}
	if n := hits.Of(image(waiting)); n != 0 {
		t.Errorf("the cancelled print's image was fetched %d times: it rendered", n)
	}
	if _, statuses, _ := printIDs(do(t, "GET", srv.baseURL+"/v1/shop/orders/SO-1", boot.Token, "").object(t)); statuses[waiting] != "cancelled" {
		t.Fatalf("the cancelled print became %s", statuses[waiting])
	}

	cancel(ids[rendering])
	if _, statuses, files := printIDs(do(t, "GET", srv.baseURL+"/v1/shop/orders/SO-1", boot.Token, "").object(t)); statuses[rendering] != "cancelled" || files[rendering] != 0 {
		t.Errorf("the cancelled ready print is %s with %d files", statuses[rendering], files[rendering])
	}
	if r := do(t, "GET", readyLink, "", ""); r.status != http.StatusNotFound {
		t.Errorf("its old link: %d %s", r.status, r.body)
	}
	if r := run(t, nil, "admin", "print", "cancel", "no-such-print", "--data-dir", dataDir); r.code == 0 {
		t.Error("cancelling an unknown print succeeded")
	}
}

// unfinishedRenders counts the render jobs that may still run, read
// from the SQLite database in dataDir beside the serve that uses it,
// opened read-only.
func unfinishedRenders(t *testing.T, dataDir string) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dataDir, "platen.db")+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	jobs, err := queue.Jobs(context.Background(), db, "sqlite3", renderjobs.RenderKind, renderjobs.ShopRenderKind)
	if err != nil {
		t.Fatalf("render jobs: %v", err)
	}
	n := 0
	for _, job := range jobs {
		if !queue.Finished(job) {
			n++
		}
	}
	return n
}
