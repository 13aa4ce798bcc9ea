package main

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// receiverBin builds the command once per test that needs it.
func receiverBin(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "webhook-receiver")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// envWithout is the test's environment without PLATEN_WEBHOOK_SECRET,
// plus extra.
func envWithout(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PLATEN_WEBHOOK_SECRET=") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

var listening = regexp.MustCompile(`listening on (http://\S+/)`)

// startReceiver starts the command with stdin and env, and returns its
// base URL and its stdout, line by line.
func startReceiver(t *testing.T, bin, stdin string, env []string, args ...string) (string, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-addr", "127.0.0.1:0"}, args...)...)
	cmd.Stdin, cmd.Env = strings.NewReader(stdin), env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	found := make(chan string, 1)
	go func() {
		logs := bufio.NewScanner(stderr)
		for logs.Scan() {
			if m := listening.FindStringSubmatch(logs.Text()); m != nil {
				found <- m[1]
			}
		}
		close(found)
	}()
	select {
	case base, ok := <-found:
		if !ok {
			t.Fatal("the receiver ended before it listened")
		}
		return base, bufio.NewScanner(stdout)
	case <-time.After(30 * time.Second):
		t.Fatal("the receiver did not say where it listens")
	}
	return "", nil
}

// deliver posts body signed with secret, as Platen does, and returns the
// status.
func deliver(t *testing.T, base, secret, body string) int {
	t.Helper()
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(body))
	req, err := http.NewRequest("POST", base, bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Platen-Signature", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	req.Header.Set("Platen-Delivery", "d-1")
	req.Header.Set("Platen-Event", "print_files.ready")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestSecretFromFileOrStdin: the receiver takes the secret from a file,
// from standard input (-secret-file -) or from PLATEN_WEBHOOK_SECRET,
// accepts what that secret signs and prints it, and refuses what another
// secret signs.
func TestSecretFromFileOrStdin(t *testing.T) {
	bin := receiverBin(t)
	const secret = "whsec_c2VjcmV0LW9mLXRoZS10ZXN0"
	file := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(file, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		stdin string
		env   []string
		args  []string
	}{
		"file":  {args: []string{"-secret-file", file}},
		"stdin": {stdin: secret + "\n", args: []string{"-secret-file", "-"}},
		"env":   {env: []string{"PLATEN_WEBHOOK_SECRET=" + secret}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			base, lines := startReceiver(t, bin, c.stdin, envWithout(c.env...), c.args...)
			if got := deliver(t, base, "whsec_another", `{"n":1}`); got != http.StatusUnauthorized {
				t.Errorf("a delivery signed with another secret: %d, want 401", got)
			}
			if got := deliver(t, base, secret, `{"n":2}`); got != http.StatusNoContent {
				t.Fatalf("a delivery signed with the secret: %d, want 204", got)
			}
			if !lines.Scan() {
				t.Fatalf("nothing printed: %v", lines.Err())
			}
			if got, want := lines.Text(), `d-1 print_files.ready {"n":2}`; got != want {
				t.Errorf("printed %q, want %q", got, want)
			}
		})
	}
}

// TestSecretRefusals: no secret, one that is not a signing secret, or the
// secret on the command line ends the receiver with a message saying how
// to give it.
func TestSecretRefusals(t *testing.T) {
	bin := receiverBin(t)
	notSecret := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(notSecret, []byte("plt_abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		stdin   string
		args    []string
		mention string
	}{
		"none":                {mention: "-secret-file"},
		"empty stdin":         {args: []string{"-secret-file", "-"}, mention: "standard input"},
		"not a secret":        {args: []string{"-secret-file", notSecret}, mention: notSecret},
		"missing file":        {args: []string{"-secret-file", notSecret + ".gone"}, mention: "-secret-file"},
		"on the command line": {args: []string{"-secret", "whsec_abc"}, mention: "-secret-file"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(bin, append([]string{"-addr", "127.0.0.1:0"}, c.args...)...)
			cmd.Stdin, cmd.Env = strings.NewReader(c.stdin), envWithout()
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			done := make(chan error, 1)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err == nil {
					t.Fatalf("exit 0; stderr %s", stderr.String())
				}
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatal("the receiver started")
			}
			if !strings.Contains(stderr.String(), c.mention) {
				t.Errorf("stderr does not mention %q: %s", c.mention, stderr.String())
			}
		})
	}
}
