package platentest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Grpcurl runs grpcurl, the gRPC client operators use (pinned in
// tools/grpcurl/go.mod, built by `go tool` on first use), with args, and
// returns what it printed and how it exited.
func Grpcurl(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	modfile := filepath.Join(repoRoot(t), "tools", "grpcurl", "go.mod")
	cmd := exec.CommandContext(t.Context(), "go", append([]string{"tool", "-modfile=" + modfile, "grpcurl"}, args...)...)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	err = cmd.Run()
	return out.String(), errs.String(), err
}

// repoRoot is the directory of the module's go.mod, above the test's.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "tools", "grpcurl", "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no tools/grpcurl/go.mod above the test's directory")
		}
		dir = parent
	}
}
