package clients

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/testtools"
)

// openapiTypescript is the tutorial's TypeScript generator, at its version.
var openapiTypescript = regexp.MustCompile(`npx --yes openapi-typescript@([0-9.]+) `)

// TestTypeScriptClientFromTheDocument: the tutorial's openapi-typescript
// types of the served document compile (tsc, strict) with openapi-fetch
// calls that send an Idempotency-Key and a webhook body's type; run, the
// retry is answered with the first order, marked replayed.
func TestTypeScriptClientFromTheDocument(t *testing.T) {
	tools, err := filepath.Abs("ts")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(tools, "node_modules", ".bin", "tsc")); err != nil {
		testtools.Missing(t, "the TypeScript client's tools are not installed in e2e/clients/ts: `make test` runs npm ci there when npm is installed")
	}
	tutorial, err := os.ReadFile("../../docs/tutorial.md")
	if err != nil {
		t.Fatal(err)
	}
	version := openapiTypescript.FindStringSubmatch(string(tutorial))
	pkg, err := os.ReadFile(filepath.Join(tools, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if version == nil || !strings.Contains(string(pkg), `"openapi-typescript": "`+version[1]+`"`) {
		t.Fatalf("the tutorial's openapi-typescript (%v) is not the version e2e/clients/ts pins", version)
	}
	srv := platentest.Start(t, platentest.SQLite())
	acme := srv.Bootstrap(t, "acme", "acme-shop")
	_, document := platentest.Get(t, http.DefaultClient, srv.BaseURL+"/openapi.json")

	dir := t.TempDir()
	write(t, filepath.Join(dir, "platen.openapi.json"), document)
	for _, name := range []string{"client.ts", "tsconfig.json", "package.json"} {
		data, err := os.ReadFile(filepath.Join(tools, name))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, name), data)
	}
	if err := os.Symlink(filepath.Join(tools, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "node_modules/.bin/openapi-typescript", "platen.openapi.json", "-o", "platen.d.ts")
	run(t, dir, "node_modules/.bin/tsc", "-p", ".")
	body, _ := json.Marshal(platentest.OrderBody("acme-shop", "ts-1"))
	out := strings.Split(strings.TrimSpace(run(t, dir, "node", "out/client.js", srv.BaseURL, acme.Token, string(body))), "\n")
	if len(out) != 3 {
		t.Fatalf("the client printed %q, want two answers and a status", out)
	}
	first, again := strings.Fields(out[0]), strings.Fields(out[1])
	if len(first) != 3 || first[0] != "200" || first[1] == "-" || first[2] != "-" {
		t.Errorf("first create: %q, want 200, the order's uid, no Idempotent-Replayed", out[0])
	}
	if len(again) != 3 || again[0] != "200" || len(first) < 2 || again[1] != first[1] || again[2] != "true" {
		t.Errorf("the retry with the key: %q, want 200, the first order's uid, Idempotent-Replayed true", out[1])
	}
}

// run runs a command in dir and returns its output.
func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	return runWith(t, dir, nil, name, args...)
}

// runWith runs a command in dir, with env added to the test's
// environment, and returns its output; it fails the test with the
// command's error output if it fails.
func runWith(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}
