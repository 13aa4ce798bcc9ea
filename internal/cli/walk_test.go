package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/testtools"
)

// TestGuideWalk follows the README's first order and then the tutorial as a
// newcomer does, on one data directory: every `sh` block in turn, in one
// POSIX shell (`sh`, which is dash on Debian, so a bash-ism fails), against
// `platen serve` started as each guide's `make run` block says. Only what
// differs on a test machine is changed: the ports (8080, 9090, 9999 become
// free ones), `bin/platen` (the binary TestMain built), /tmp/ (the test's
// folder), and `sleep`, which waits until the server's job queue is idle
// rather than a fixed time. A command that fails, an HTTP or gRPC error, or
// a file the walk leaves in the repository's working tree fails the test.
// The tutorial runs on the data the README left, so an id it assumes
// rather than reads from an answer fails too.
func TestGuideWalk(t *testing.T) {
	t.Parallel() // each test runs processes of its own
	testtools.Need(t, "curl", "curl")
	testtools.Need(t, "jq", "jq")
	testtools.Need(t, "poppler-utils", "pdfinfo", "pdftoppm", "pdftotext")
	testtools.Need(t, "npm", "npx")
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	before := workingTree(t, root)
	w := &walk{t: t, root: root, dir: t.TempDir()}
	w.follow("README.md")
	w.follow(filepath.Join("docs", "tutorial.md"))
	if !strings.Contains(w.output, "print_files.ready") {
		t.Errorf("the tutorial's webhook receiver logged no print_files.ready delivery; the walk printed:\n%s", w.output)
	}
	if left := newEntries(before, workingTree(t, root)); len(left) > 0 {
		t.Errorf("the walk left in the repository's working tree:\n%s", strings.Join(left, "\n"))
	}
}

// walk is the guides followed so far: their data directory and output.
type walk struct {
	t      *testing.T
	root   string // the repository, where the shell runs
	dir    string // the data directory, the shell's /tmp and its files
	output string
}

// follow starts the server as guide's `make run` block says, runs its
// other sh blocks in one shell, and stops the server.
func (w *walk) follow(guide string) {
	t := w.t
	text, err := os.ReadFile(filepath.Join(w.root, guide))
	if err != nil {
		t.Fatal(err)
	}
	blocks := shBlocks(string(text))
	flags, script := serveFlags(t, guide, blocks)
	data := filepath.Join(w.dir, "data")
	srv, httpAddr, grpcAddr := serveOnFreePorts(t, func(httpAddr, grpcAddr string) *server {
		args := append([]string{"--http-addr", httpAddr, "--grpc-addr", grpcAddr, "--data-dir", data}, flags...)
		return startServe(t, httpAddr, nil, args...)
	})
	defer stopServe(t, srv)

	tmp := filepath.Join(w.dir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	replacer := strings.NewReplacer(
		"127.0.0.1:8080", httpAddr, "127.0.0.1%3A8080", strings.Replace(httpAddr, ":", "%3A", 1),
		"127.0.0.1:9090", grpcAddr, "127.0.0.1:9999", freeAddr(t),
		"bin/platen", platenBin, "/tmp/", tmp+"/")
	var body strings.Builder
	for _, b := range script {
		fmt.Fprintf(&body, "\necho '--- %s, the block at line %d' >&2\n%s\ncheck\n", guide, b.line, replacer.Replace(b.text))
	}
	out, err := w.shell(filepath.Join(w.dir, "failed"), "http://"+httpAddr+"/metrics", tmp, body.String())
	w.output += out
	if err != nil {
		t.Fatalf("following %s: %v; the walk printed (--- marks each block):\n%s", guide, err, out)
	}
}

// walkPrelude makes the shell stop at the first failure, counting an HTTP
// error of curl and an error of grpcurl as one even inside a pipeline
// (which sh's set -e does not see): check, run after each block, stops the
// walk there. sleep waits for the server's queue to have nothing
// available or running, as long as the machine needs, up to a minute.
const walkPrelude = `set -e
curl() { command curl --fail-with-body "$@" || { echo "curl $*: failed" >> "$WALK_FAILED"; return 1; }; }
grpcurl() { command grpcurl "$@" || { echo "grpcurl $*: failed" >> "$WALK_FAILED"; return 1; }; }
check() { if [ -s "$WALK_FAILED" ]; then cat "$WALK_FAILED" >&2; exit 1; fi; }
busy() {
  command curl -s "$WALK_METRICS" |
    awk '/^platen_queue_jobs\{/ && /state="(available|running)"/ && $2 != 0 { busy = 1 } END { exit !busy }'
}
sleep() {
  waited=0
  while busy; do
    waited=$((waited + 1))
    if [ "$waited" -gt 600 ]; then echo "the server's queue was still busy after a minute" >&2; return 1; fi
    command sleep 0.1
  done
}
`

// shell runs script after the prelude in sh, in the repository, with the
// data directory and GOPATH's bin (where `go install` puts grpcurl) set.
func (w *walk) shell(failed, metrics, tmp, script string) (string, error) {
	ctx, cancel := context.WithTimeout(w.t.Context(), 10*time.Minute)
	defer cancel()
	gopath, err := exec.Command("go", "env", "GOPATH").Output()
	if err != nil {
		w.t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", walkPrelude+script)
	cmd.Dir = w.root
	cmd.Env = childEnv("PLATEN_DATA_DIR="+filepath.Join(w.dir, "data"), "WALK_FAILED="+failed,
		"WALK_METRICS="+metrics, "TMPDIR="+tmp,
		"PATH="+os.Getenv("PATH")+string(os.PathListSeparator)+filepath.Join(strings.TrimSpace(string(gopath)), "bin"))
	// What the walk starts in the background (the webhook receiver) goes
	// with it, also when it fails before it stops them itself.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	return out.String(), err
}

// block is a fenced sh block of a guide and the line it starts on.
type block struct {
	line int
	text string
}

var fence = regexp.MustCompile("(?m)^```sh\n((?:.*\n)*?)```")

func shBlocks(text string) []block {
	var blocks []block
	for _, m := range fence.FindAllStringSubmatchIndex(text, -1) {
		blocks = append(blocks, block{line: strings.Count(text[:m[0]], "\n") + 1, text: text[m[2]:m[3]]})
	}
	return blocks
}

// serveFlags takes the guide's block that starts the server (its first
// line `make run …`) out of blocks: the flags it gives, and the rest.
func serveFlags(t *testing.T, guide string, blocks []block) (flags []string, rest []block) {
	t.Helper()
	found := false
	for _, b := range blocks {
		first, _, _ := strings.Cut(b.text, "\n")
		if !strings.HasPrefix(first, "make run") {
			rest = append(rest, b)
			continue
		}
		found = true
		command, _, _ := strings.Cut(first, "#")
		for _, word := range strings.Fields(command) {
			if v, ok := strings.CutPrefix(word, "RUN_FLAGS="); ok {
				flags = append(flags, strings.Fields(strings.Trim(v, `"'`))...)
			}
		}
	}
	if !found {
		t.Fatalf("%s has no sh block starting with `make run`: the walk does not know how it starts the server", guide)
	}
	return flags, rest
}

// stopServe ends srv as Ctrl-C does, and waits.
func stopServe(t *testing.T, srv *server) {
	t.Helper()
	_ = srv.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-srv.done:
	case <-time.After(30 * time.Second):
		t.Errorf("platen serve still running 30 s after Ctrl-C")
	}
}

// workingTree is git's short status of the repository, untracked and
// ignored files included, each one listed.
func workingTree(t *testing.T, root string) []string {
	t.Helper()
	cmd := exec.Command("git", "status", "--porcelain", "--untracked-files=all", "--ignored")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		testtools.Missing(t, fmt.Sprintf("git status in %s: %v (the walk checks what it leaves in a git checkout)", root, err))
	}
	return strings.Split(strings.TrimRight(string(out), "\n"), "\n")
}

// newEntries is what after lists that before did not, leaving out what
// the build and the tests write while the walk runs (coverage, bin/).
func newEntries(before, after []string) []string {
	had := make(map[string]bool, len(before))
	for _, e := range before {
		had[e] = true
	}
	var left []string
	for _, e := range after {
		path := strings.TrimSpace(e[min(2, len(e)):])
		if had[e] || strings.HasPrefix(path, ".cover/") || strings.HasPrefix(path, "bin/") {
			continue
		}
		left = append(left, e)
	}
	return left
}
