package testtools_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/testtools"
)

// TestMakeShowsNpmFailures: when npm cannot install the Node.js packages
// some tests use (no network, a registry that refuses), `make test-tools`,
// which make test runs first, prints npm's own error and what it means for
// the tests, and lets make test go on.
func TestMakeShowsNpmFailures(t *testing.T) {
	testtools.Need(t, "make", "make")
	dir := t.TempDir()
	makefile, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	fakeNpm := "#!/bin/sh\necho 'npm error code ECONNREFUSED (from the fake npm)' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), makefile, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(fakeNpm), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", "-s", "test-tools")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make test-tools with npm failing: %v, want it to go on; it printed:\n%s", err, out)
	}
	for _, want := range []string{
		"npm error code ECONNREFUSED (from the fake npm)",
		"the panel's browser tests skip, or fail where PLATEN_TEST_REQUIRE_TOOLS is set",
		"the webhook verifier tests skip, or fail where PLATEN_TEST_REQUIRE_TOOLS is set",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("make test-tools with npm failing printed:\n%s\nwant it to say %q", out, want)
		}
	}
}
