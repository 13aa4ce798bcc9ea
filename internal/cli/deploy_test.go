package cli_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/image/font/gofont/goregular"

	"github.com/platen-print/platen/internal/platentest"
)

// deployDir holds the production recipes docs/deployment.md describes.
var deployDir = filepath.Join("..", "..", "docs", "deploy")

// TestDeploymentRecipes checks the recipes of docs/deploy against the
// binary: every flag the systemd units and the container image pass, and
// every setting of the environment file, is one the command has; systemd
// waits longer than a graceful shutdown; the image builds the binary
// static. Then it starts a render process and a serve with the units'
// flags and the environment file's settings (the addresses, database,
// bucket and public URL made local), and an order's print renders through
// the render process (with a font only it has) and downloads through its
// link.
func TestDeploymentRecipes(t *testing.T) {
	t.Parallel() // each test runs processes of its own
	serveUnit, renderUnit := readUnit(t, "platen-serve.service"), readUnit(t, "platen-render.service")
	serveArgs, renderArgs := execArgs(t, serveUnit, "serve"), execArgs(t, renderUnit, "render")
	serveFlags, renderFlags := commandFlags(t, "serve"), commandFlags(t, "render")
	checkFlags(t, "platen-serve.service", serveArgs, serveFlags)
	checkFlags(t, "platen-render.service", renderArgs, renderFlags)
	for name, unit := range map[string]map[string]string{"platen-serve.service": serveUnit, "platen-render.service": renderUnit} {
		for _, key := range []string{"User", "EnvironmentFile", "Restart", "TimeoutStopSec"} {
			if unit[key] == "" {
				t.Errorf("%s sets no %s", name, key)
			}
		}
	}
	// A serve's graceful shutdown takes --shutdown-timeout (20 s); a
	// render finishes its render (--render-timeout, 2 min).
	if stop, _ := strconv.Atoi(serveUnit["TimeoutStopSec"]); stop <= 20 {
		t.Errorf("platen-serve.service: TimeoutStopSec=%d, not longer than the 20 s shutdown", stop)
	}
	if stop, _ := strconv.Atoi(renderUnit["TimeoutStopSec"]); stop <= 120 {
		t.Errorf("platen-render.service: TimeoutStopSec=%d, not longer than a 2 min render", stop)
	}
	env := readEnvFile(t)
	for key := range env {
		if flag, ok := strings.CutPrefix(key, "PLATEN_"); ok && !serveFlags[strings.ReplaceAll(strings.ToLower(flag), "_", "-")] {
			t.Errorf("platen.env sets %s, which is no flag of platen serve", key)
		}
	}
	checkContainerfile(t, serveFlags)
	if t.Failed() {
		return
	}
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		runRecipes(t, serveArgs, renderArgs, env, b.NewDatabaseURL(t))
	})
}

// runRecipes starts the render process and the serve as the recipes do,
// with what names other machines made local, and renders a print.
func runRecipes(t *testing.T, serveArgs, renderArgs []string, env map[string]string, databaseURL string) {
	dataDir := t.TempDir()
	local := map[string]string{
		"PLATEN_DATABASE_URL": databaseURL,
		"PLATEN_BLOB_URL":     "file://" + filepath.Join(dataDir, "files"),
	}
	settings := func(extra map[string]string) []string {
		var out []string
		for k, v := range env {
			if strings.HasPrefix(k, "AWS_") {
				continue // the file store needs no credentials
			}
			if v2, ok := local[k]; ok {
				v = v2
			}
			if v2, ok := extra[k]; ok {
				v = v2
			}
			out = append(out, k+"="+v)
		}
		return append(out, "PLATEN_DATA_DIR="+dataDir)
	}
	// A font only the render process has: a print rendered anywhere else
	// would fail.
	fontDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(fontDir, "Render-Only.ttf"), goregular.TTF, 0o644); err != nil {
		t.Fatal(err)
	}
	renderAddr, _ := startRenderWithEnv(t, settings(nil), append(append([]string{}, renderArgs...), "--font-dir", fontDir)...)
	boot := bootstrap(t, settings(nil), "--team", "acme", "--store", "acme-shop")
	srv, _, _ := serveOnFreePorts(t, func(httpAddr, grpcAddr string) *server {
		args := append(append([]string{}, serveArgs...), "--http-addr", httpAddr, "--grpc-addr", grpcAddr)
		return startServe(t, httpAddr, settings(map[string]string{"PLATEN_RENDER_ADDR": renderAddr, "PLATEN_PUBLIC_URL": "http://" + httpAddr}), args...)
	})
	doc := `{"width": 100, "height": 50, "layers": [{"type": "text", "text": "Platen", "font": "Render-Only", "size": 14, "x": 5, "y": 5}]}`
	body := jsonOf(platentest.OrderBody("acme-shop", "1", platentest.PrintFiles(), platentest.Design(doc)))
	if r := do(t, "POST", srv.baseURL+"/api/v1/orders", boot.Token, body); r.status != http.StatusOK {
		t.Fatalf("create order: %d %s", r.status, r.body)
	}
	st := platentest.WaitPrintAt(t, readyTimeout, srv.baseURL, boot.Token, "1-1", platentest.PrintReady)
	link, _ := st["url"].(string)
	if !strings.HasPrefix(link, srv.baseURL+"/") {
		t.Fatalf("the link %q does not start with the public URL %s", link, srv.baseURL)
	}
	resp, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/pdf" {
		t.Errorf("the link answers %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

// readUnit reads a systemd unit's Key=Value lines (sections merged).
func readUnit(t *testing.T, name string) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(deployDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	unit := map[string]string{}
	sections := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			sections[line] = true
		default:
			key, value, ok := strings.Cut(line, "=")
			if !ok {
				t.Errorf("%s: not Key=Value: %q", name, line)
			}
			unit[key] = value
		}
	}
	for _, s := range []string{"[Unit]", "[Service]", "[Install]"} {
		if !sections[s] {
			t.Errorf("%s has no %s section", name, s)
		}
	}
	return unit
}

// execArgs is the unit's ExecStart after the binary and its command.
func execArgs(t *testing.T, unit map[string]string, command string) []string {
	t.Helper()
	words := strings.Fields(unit["ExecStart"])
	if len(words) < 2 || words[0] != "/usr/local/bin/platen" || words[1] != command {
		t.Fatalf("ExecStart=%s, want /usr/local/bin/platen %s …", unit["ExecStart"], command)
	}
	return words[2:]
}

var flagName = regexp.MustCompile(`(?m)^\s+(?:-\w, )?--([a-z0-9-]+)`)

// commandFlags lists the flags `platen COMMAND --help` shows.
func commandFlags(t *testing.T, command string) map[string]bool {
	t.Helper()
	flags := map[string]bool{}
	for _, m := range flagName.FindAllStringSubmatch(runOK(t, nil, command, "--help").stdout, -1) {
		flags[m[1]] = true
	}
	if len(flags) < 3 {
		t.Fatalf("platen %s --help lists %d flags", command, len(flags))
	}
	return flags
}

// checkFlags fails t for every --flag in args that flags lacks.
func checkFlags(t *testing.T, what string, args []string, flags map[string]bool) {
	t.Helper()
	for _, a := range args {
		name, ok := strings.CutPrefix(a, "--")
		if name, _, _ = strings.Cut(name, "="); ok && !flags[name] {
			t.Errorf("%s passes --%s, which the command does not have", what, name)
		}
	}
}

// readEnvFile reads platen.env's KEY=VALUE lines.
func readEnvFile(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(deployDir, "platen.env"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, line := range strings.Split(string(raw), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			t.Errorf("platen.env: not KEY=VALUE: %q", line)
		}
		env[key] = value
	}
	return env
}

// checkContainerfile checks that the image builds the binary static and
// runs serve with flags it has.
func checkContainerfile(t *testing.T, serveFlags map[string]bool) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(deployDir, "Containerfile"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	if !strings.Contains(text, "RUN CGO_ENABLED=0 go build -trimpath -o /out/platen ./cmd/platen") {
		t.Error("the Containerfile does not build ./cmd/platen static")
	}
	m := regexp.MustCompile(`(?m)^CMD (\[.*\])$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatal("the Containerfile has no CMD [...]")
	}
	var cmd []string
	if err := json.Unmarshal([]byte(m[1]), &cmd); err != nil || len(cmd) < 1 || cmd[0] != "serve" {
		t.Fatalf("CMD %s: want a JSON array starting with serve (%v)", m[1], err)
	}
	checkFlags(t, "the Containerfile's CMD", cmd[1:], serveFlags)
}
