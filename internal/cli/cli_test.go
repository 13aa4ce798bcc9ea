package cli_test

// End-to-end tests of the platen binary: TestMain builds it once, and every
// test runs it as a child process, the way an operator would.

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
)

// platenBin is the binary TestMain built.
var platenBin string

// coverDir, when make test sets it, is where the processes the tests
// start write their coverage: the binary is then built with -cover, and
// every child inherits it as GOCOVERDIR. (It cannot be GOCOVERDIR itself:
// go test gives each test binary a GOCOVERDIR of its own, removed after.)
var coverDir = os.Getenv("PLATEN_TEST_COVERDIR")

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cli-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "temp dir:", err)
		os.Exit(1)
	}
	// The same binary as `platen`, under a name of its own: on a shared
	// machine a `pkill -x platen` (or `killall platen`) meant for someone
	// else's server would otherwise stop these tests' servers mid-test.
	platenBin = filepath.Join(dir, "platen-e2e")
	// The test runs in internal/cli: the module root is two levels up.
	// Without its symbol table and DWARF (-s -w) the binary links in half
	// the time; a panic's trace still names every function and line.
	args := []string{"build", "-ldflags=-s -w", "-o", platenBin}
	if coverDir != "" {
		// make test counts what the binary runs in the coverage. The main
		// package must be in -coverpkg: a binary whose main is not
		// instrumented writes no coverage at all. The mode is this test
		// binary's: covdata cannot merge different modes.
		args = append(args, "-covermode="+cmp.Or(testing.CoverMode(), "set"), "-coverpkg=./cmd/platen,./internal/...,./third_party/...")
		os.Setenv("GOCOVERDIR", coverDir) //nolint:errcheck // cannot fail for a valid name
	}
	build := exec.Command("go", append(args, "./cmd/platen")...)
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build ./cmd/platen: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const (
	// readyTimeout bounds a serve's start: about a second, but on a
	// machine building and running four test packages at once, a start on
	// PostgreSQL (its migration) once took over 15 s.
	readyTimeout = time.Minute
	// revocationLimit is how long a revoked token may keep working
	// (docs/behaviour.md: within about 3 s everywhere; 5 s with a margin).
	revocationLimit = 5 * time.Second
)

// ---------------------------------------------------------------------------
// Processes

// childEnv is the test's environment without any PLATEN_* variable (so that
// the developer's own settings do not leak into the child), plus extra.
func childEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PLATEN_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// result is a finished platen command.
type result struct {
	args           []string
	code           int
	stdout, stderr string
	elapsed        time.Duration
}

func (r result) String() string {
	return fmt.Sprintf("platen %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

// run runs platen with env (PLATEN_* settings) and args and waits for it
// (at most a minute).
func run(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, platenBin, args...)
	cmd.Env = childEnv(env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := result{args: args, stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	default:
		t.Fatalf("platen %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// runOK runs platen and fails the test unless it exits 0.
func runOK(t *testing.T, env []string, args ...string) result {
	t.Helper()
	r := run(t, env, args...)
	if r.code != 0 {
		t.Fatalf("want exit 0, got %v", r)
	}
	return r
}

// syncBuffer is a bytes.Buffer that a child's output goroutine writes while
// the test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// server is a running `platen serve`.
type server struct {
	cmd     *exec.Cmd
	baseURL string
	stdout  *syncBuffer
	stderr  *syncBuffer
	done    chan struct{} // closed when the process has exited
	waitErr error         // set before done is closed
}

// startServe starts `platen serve` with env and args, and kills it at the
// end of the test if it still runs. It does not wait for readiness.
func startServe(t *testing.T, httpAddr string, env []string, args ...string) *server {
	t.Helper()
	cmd := exec.Command(platenBin, append([]string{"serve"}, args...)...)
	cmd.Env = childEnv(env...)
	s := &server{cmd: cmd, baseURL: "http://" + httpAddr, stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = s.stdout, s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start platen serve: %v", err)
	}
	go func() {
		s.waitErr = cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		how := "exited on its own"
		select {
		case <-s.done:
		default:
			if t.Failed() && strings.Contains(s.stderr.String(), "shutting down") {
				// It is shutting down: let it finish, so that its last
				// words reach the log below.
				select {
				case <-s.done:
				case <-time.After(3 * time.Second):
				}
			}
			select {
			case <-s.done:
			default:
				how = "killed by the test"
				_ = cmd.Process.Kill()
				<-s.done
			}
		}
		if t.Failed() {
			t.Logf("platen serve (pid %d) %s: %v; stderr:\n%s", cmd.Process.Pid, how, s.waitErr, s.logDigest())
		}
	})
	return s
}

// logDigest is the server's stderr without the access log lines of
// successful requests, which it counts instead.
func (s *server) logDigest() string {
	var b strings.Builder
	ok := 0
	for _, line := range strings.Split(strings.TrimRight(s.stderr.String(), "\n"), "\n") {
		var l struct {
			Msg    string `json:"msg"`
			Status int    `json:"status"`
		}
		if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "http request" && l.Status < 400 {
			ok++
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "(and %d access log lines of successful requests)", ok)
	return b.String()
}

// waitReady polls /readyz until it answers 200, for up to readyTimeout.
func (s *server) waitReady(t *testing.T) {
	t.Helper()
	if !s.awaitReady(t) {
		t.Fatalf("platen serve exited before it was ready (%v); stderr:\n%s", s.waitErr, s.stderr.String())
	}
}

// awaitReady is waitReady that answers false, rather than failing the test,
// when the process exits first. Ready is /readyz answering 200 while this
// process has logged that it serves: another process on the address (one
// that took a port freeAddr handed out) does not count.
func (s *server) awaitReady(t *testing.T) bool {
	t.Helper()
	client := &http.Client{Timeout: time.Second}
	var err error
	if !poll.Within(readyTimeout, nil, func() bool {
		select {
		case <-s.done:
			return true
		default:
		}
		var resp *http.Response
		if resp, err = client.Get(s.baseURL + "/readyz"); err != nil {
			return false
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(s.stderr.String(), `"platen serving"`) {
			return false
		}
		var got map[string]any
		if err := json.Unmarshal(body, &got); err != nil || got["status"] != "ok" {
			t.Fatalf("/readyz: 200 with body %s, want {\"status\":\"ok\"}", body)
		}
		return true
	}) {
		t.Fatalf("platen serve not ready on %s after %v (last error %v); stderr:\n%s", s.baseURL, readyTimeout, err, s.stderr.String())
	}
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// addrInUse tells whether a process's stderr says it could not listen
// because the address was taken.
func addrInUse(stderr string) bool { return strings.Contains(stderr, "address already in use") }

// bindAttempts bounds how often a process is started again on other ports
// after losing one to another process.
const bindAttempts = 5

// serveOnFreePorts starts `platen serve` with start on fresh loopback
// ports and waits until it is ready. freeAddr's ports were only free a
// moment ago: when another process (a parallel test's serve, a client's
// ephemeral port) took one meanwhile, serve exits with "address already in
// use", and is started again on new ports.
func serveOnFreePorts(t *testing.T, start func(httpAddr, grpcAddr string) *server) (s *server, httpAddr, grpcAddr string) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		httpAddr, grpcAddr = freeAddr(t), freeAddr(t)
		s = start(httpAddr, grpcAddr)
		if s.awaitReady(t) {
			return s, httpAddr, grpcAddr
		}
		if !addrInUse(s.stderr.String()) || attempt == bindAttempts {
			t.Fatalf("platen serve exited before it was ready (%v, attempt %d); stderr:\n%s", s.waitErr, attempt, s.stderr.String())
		}
		t.Logf("platen serve lost a port to another process (attempt %d); starting it on others", attempt)
	}
}

// serve starts `platen serve` on fresh ports with the data dir and extra
// flags, and waits until it is ready.
func serve(t *testing.T, dataDir string, extra ...string) *server {
	t.Helper()
	s, _, _ := serveOnFreePorts(t, func(httpAddr, grpcAddr string) *server {
		args := append([]string{"--http-addr", httpAddr, "--grpc-addr", grpcAddr, "--data-dir", dataDir}, extra...)
		return startServe(t, httpAddr, nil, args...)
	})
	return s
}

// logLines parses the server's stderr as JSON lines, failing the test on a
// line that is not a JSON object.
func (s *server) logLines(t *testing.T) []map[string]any {
	t.Helper()
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(s.stderr.String()))
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("stderr line is not a JSON object (%v): %q", err, line)
		}
		lines = append(lines, obj)
	}
	return lines
}

// waitLog polls the server's logs for up to 3 s for a line match accepts.
func (s *server) waitLog(t *testing.T, what string, match func(map[string]any) bool) map[string]any {
	t.Helper()
	return s.waitLogWithin(t, 3*time.Second, what, match)
}

// waitLogWithin is waitLog for up to within.
func (s *server) waitLogWithin(t *testing.T, within time.Duration, what string, match func(map[string]any) bool) map[string]any {
	t.Helper()
	var line map[string]any
	if !poll.Within(within, nil, func() bool {
		for _, l := range s.logLines(t) {
			if match(l) {
				line = l
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no log line %s; stderr:\n%s", what, s.stderr.String())
	}
	return line
}

// freeAddr returns a loopback address with a port that was free a moment
// ago; another process may take it before it is used, see serveOnFreePorts.
func freeAddr(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	addr := lis.Addr().String()
	lis.Close()
	return addr
}

// ---------------------------------------------------------------------------
// HTTP

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) object(t *testing.T) map[string]any {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal(r.body, &obj); err != nil {
		t.Fatalf("body is not a JSON object (status %d, %v): %s", r.status, err, r.body)
	}
	return obj
}

var httpClient = &http.Client{Timeout: 10 * time.Second}

// do sends a request with an optional JSON body, bearer token and header
// pairs.
func do(t *testing.T, method, url, token, body string, headers ...string) response {
	t.Helper()
	var reader io.Reader
	if body != "" {
		reader = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, reader)
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, url, err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: raw}
}

// jsonOf is v as JSON, a request body of do's.
func jsonOf(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}

// createOrder posts an order and returns its uid.
func createOrder(t *testing.T, s *server, token, storeID, orderID, itemID string, headers ...string) (string, response) {
	t.Helper()
	r := do(t, "POST", s.baseURL+"/api/v1/orders", token, jsonOf(platentest.OrderBody(storeID, orderID, platentest.Items(map[string]any{"ecommerce_order_item_id": itemID}))), headers...)
	if r.status != http.StatusOK {
		t.Fatalf("POST /api/v1/orders: want 200, got %d: %s", r.status, r.body)
	}
	uid, _ := r.object(t)["uid"].(string)
	if uid == "" {
		t.Fatalf("POST /api/v1/orders: no uid in %s", r.body)
	}
	return uid, r
}

// checkPrintReceived reads an item's print status and checks that it is
// received with a JSON null url.
func checkPrintReceived(t *testing.T, s *server, token, itemID string) {
	t.Helper()
	r := do(t, "GET", s.baseURL+"/api/v1/order-items/"+url.PathEscape(itemID)+"/print", token, "")
	if r.status != http.StatusOK {
		t.Fatalf("GET print status of %s: want 200, got %d: %s", itemID, r.status, r.body)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(r.body, &got); err != nil {
		t.Fatalf("print status is not a JSON object: %s", r.body)
	}
	if string(got["ecommerce_order_item_id"]) != `"`+itemID+`"` || string(got["status"]) != `"received"` {
		t.Errorf("print status: got %s, want item %q with status \"received\"", r.body, itemID)
	}
	if u, ok := got["url"]; !ok || string(u) != "null" {
		t.Errorf("print status: url must be present and JSON null, got %s", r.body)
	}
}

// ---------------------------------------------------------------------------
// Admin output

// bootstrapped is what `platen admin bootstrap` prints.
type bootstrapped struct {
	TeamID        int    `json:"team_id"`
	StoreID       string `json:"store_id"`
	Token         string `json:"token"`
	WebhookSecret string `json:"webhook_secret"`
}

// decodeOne decodes stdout as exactly one JSON value into v, failing the
// test on anything else on stdout.
func decodeOne(t *testing.T, r result, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("stdout is not JSON (%v): %v", err, r)
	}
	rest, _ := io.ReadAll(dec.Buffered())
	if strings.TrimSpace(string(rest)) != "" {
		t.Fatalf("stdout holds more than one JSON value; after the first: %q", rest)
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		t.Fatalf("stdout holds more than one JSON value (%v): %q", err, r.stdout)
	}
}

// bootstrap runs `platen admin bootstrap` and checks its output: the
// team, store, token and webhook secret, as docs/operations.md shows them.
func bootstrap(t *testing.T, env []string, args ...string) bootstrapped {
	t.Helper()
	r := runOK(t, env, append([]string{"admin", "bootstrap"}, args...)...)
	var raw map[string]json.RawMessage
	decodeOne(t, r, &raw)
	want := []string{"team_id", "store_id", "token", "webhook_secret"}
	if len(raw) != len(want) {
		t.Errorf("bootstrap printed keys %v, want exactly %v", keys(raw), want)
	}
	for _, k := range want {
		if _, ok := raw[k]; !ok {
			t.Fatalf("bootstrap output lacks %q: %s", k, r.stdout)
		}
	}
	if c := raw["team_id"][0]; c < '0' || c > '9' {
		t.Errorf("team_id must be a JSON number, got %s", raw["team_id"])
	}
	var out bootstrapped
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("decode bootstrap output: %v: %s", err, r.stdout)
	}
	if out.TeamID <= 0 {
		t.Errorf("team_id = %d, want a positive id", out.TeamID)
	}
	if !strings.HasPrefix(out.Token, "plt_") || len(out.Token) < len("plt_")+32 {
		t.Errorf("token %q: want plt_ and at least 32 more characters", out.Token)
	}
	secret, ok := strings.CutPrefix(out.WebhookSecret, "whsec_")
	if !ok {
		t.Errorf("webhook_secret %q does not start with whsec_", out.WebhookSecret)
	} else if b, err := base64.StdEncoding.DecodeString(secret); err != nil || len(b) != 32 {
		t.Errorf("webhook_secret %q: want whsec_ + base64 of 32 bytes (decoded %d bytes, err %v)", out.WebhookSecret, len(b), err)
	}
	if strings.Contains(r.stderr, out.Token) {
		t.Errorf("the token appears on stderr too: %s", r.stderr)
	}
	return out
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// issued is what `platen admin token issue` prints.
type issued struct {
	TeamID  int     `json:"team_id"`
	StoreID *string `json:"store_id"`
	Token   string  `json:"token"`
}

func issueToken(t *testing.T, env []string, args ...string) issued {
	t.Helper()
	r := runOK(t, env, append([]string{"admin", "token", "issue"}, args...)...)
	var out issued
	decodeOne(t, r, &out)
	if !strings.HasPrefix(out.Token, "plt_") {
		t.Fatalf("token issue printed token %q, want plt_…: %v", out.Token, r)
	}
	return out
}

// listedToken is one row of `platen admin token list`.
type listedToken struct {
	ID        int        `json:"id"`
	TeamID    int        `json:"team_id"`
	StoreID   *string    `json:"store_id"`
	Name      string     `json:"name"`
	Prefix    string     `json:"prefix"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at"`
}

func listTokens(t *testing.T, env []string, args ...string) ([]listedToken, result) {
	t.Helper()
	r := runOK(t, env, append([]string{"admin", "token", "list"}, args...)...)
	var raw []map[string]json.RawMessage
	decodeOne(t, r, &raw)
	for _, row := range raw {
		for _, k := range []string{"id", "team_id", "store_id", "name", "prefix", "created_at", "revoked_at"} {
			if _, ok := row[k]; !ok {
				t.Errorf("token list row lacks %q: %s", k, r.stdout)
			}
		}
	}
	var rows []listedToken
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("decode token list: %v: %s", err, r.stdout)
	}
	return rows, r
}

// checkUTC checks that every *_at timestamp of a listing is RFC 3339 in UTC
// (as every timestamp the API and the CLI print). Run the listing with a TZ other than UTC to make this check bite.
func checkUTC(t *testing.T, r result) {
	t.Helper()
	var raw []map[string]json.RawMessage
	decodeOne(t, r, &raw)
	if len(raw) == 0 {
		t.Errorf("platen %s: empty listing, nothing to check", strings.Join(r.args, " "))
	}
	for _, row := range raw {
		for k, v := range row {
			if !strings.HasSuffix(k, "_at") || string(v) == "null" {
				continue
			}
			var ts string
			if err := json.Unmarshal(v, &ts); err != nil {
				t.Errorf("platen %s: %s is not a string: %s", strings.Join(r.args, " "), k, rowJSON(row))
				continue
			}
			if _, err := time.Parse(time.RFC3339Nano, ts); err != nil || !strings.HasSuffix(ts, "Z") {
				t.Errorf("platen %s: %s %q is not RFC 3339 in UTC; row %s", strings.Join(r.args, " "), k, ts, rowJSON(row))
			}
		}
	}
}

func rowJSON(row map[string]json.RawMessage) string {
	b, _ := json.Marshal(row)
	return string(b)
}

// nonUTC makes a child process's local time zone other than UTC.
const nonUTC = "TZ=Europe/Paris"

func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// ---------------------------------------------------------------------------
// Tests

// TestBootstrap: one JSON object with the API's four keys; a second
// run reuses the team and store and issues another token; both work.
func TestBootstrap(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	flags := []string{"--data-dir", dataDir, "--team", "acme", "--store", "acme-shop"}

	first := bootstrap(t, nil, flags...)
	if first.StoreID != "acme-shop" {
		t.Errorf("store_id = %q, want acme-shop", first.StoreID)
	}
	second := bootstrap(t, nil, flags...)
	if second.TeamID != first.TeamID || second.StoreID != first.StoreID {
		t.Errorf("second bootstrap: team %d store %q, want the first's team %d store %q", second.TeamID, second.StoreID, first.TeamID, first.StoreID)
	}
	if second.Token == first.Token {
		t.Errorf("second bootstrap printed the same token %q", first.Token)
	}
	if second.WebhookSecret != first.WebhookSecret {
		t.Errorf("second bootstrap changed the reused store's webhook secret: %q then %q", first.WebhookSecret, second.WebhookSecret)
	}

	// One team, one store, two tokens.
	var teams []map[string]any
	decodeOne(t, runOK(t, nil, "admin", "team", "list", "--data-dir", dataDir), &teams)
	if len(teams) != 1 {
		t.Errorf("team list after two bootstraps: %d teams, want 1: %v", len(teams), teams)
	}
	var stores []map[string]any
	decodeOne(t, runOK(t, nil, "admin", "store", "list", "--data-dir", dataDir), &stores)
	if len(stores) != 1 {
		t.Errorf("store list after two bootstraps: %d stores, want 1: %v", len(stores), stores)
	}
	rows, r := listTokens(t, nil, "--data-dir", dataDir)
	if len(rows) != 2 {
		t.Errorf("token list after two bootstraps: %d tokens, want 2: %s", len(rows), r.stdout)
	}
	for _, tok := range []string{first.Token, second.Token} {
		if strings.Contains(r.stdout, tok) {
			t.Errorf("token list shows a whole token: %s", r.stdout)
		}
	}

	s := serve(t, dataDir)
	createOrder(t, s, first.Token, "acme-shop", "1", "1-1")
	checkPrintReceived(t, s, second.Token, "1-1")
	createOrder(t, s, second.Token, "acme-shop", "2", "2-1")
	checkPrintReceived(t, s, first.Token, "2-1")
}

// TestServeFromEnvironment: serve configured only by PLATEN_* variables;
// JSON logs carrying the client's request id; admin commands beside a
// running serve; a flag beating its variable.
func TestServeFromEnvironment(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	env := []string{
		"PLATEN_DATA_DIR=" + dataDir,
		"PLATEN_ACCESS_LOG=true",
	}
	// Admin commands read PLATEN_DATA_DIR too.
	boot := bootstrap(t, env, "--team", "acme", "--store", "acme-shop")
	if _, err := os.Stat(filepath.Join(dataDir, "platen.db")); err != nil {
		t.Fatalf("bootstrap with PLATEN_DATA_DIR did not use that dir: %v", err)
	}

	s, httpAddr, grpcAddr := serveOnFreePorts(t, func(httpAddr, grpcAddr string) *server {
		return startServe(t, httpAddr, append([]string{"PLATEN_HTTP_ADDR=" + httpAddr, "PLATEN_GRPC_ADDR=" + grpcAddr}, env...))
	})
	env = append(env, "PLATEN_HTTP_ADDR="+httpAddr, "PLATEN_GRPC_ADDR="+grpcAddr)

	if r := do(t, "GET", s.baseURL+"/healthz", "", ""); r.status != 200 || r.object(t)["status"] != "ok" {
		t.Errorf("/healthz: %d %s", r.status, r.body)
	}

	requestID := "cli-test-" + randomHex(t, 8)
	_, resp := createOrder(t, s, boot.Token, "acme-shop", "1", "1-1", "X-Request-Id", requestID)
	if got := resp.header.Get("X-Request-Id"); got != requestID {
		t.Errorf("X-Request-Id response header = %q, want the one sent, %q", got, requestID)
	}
	checkPrintReceived(t, s, boot.Token, "1-1")

	line := s.waitLog(t, "with request_id "+requestID, func(l map[string]any) bool { return l["request_id"] == requestID })
	for _, k := range []string{"time", "level", "msg"} {
		if _, ok := line[k]; !ok {
			t.Errorf("log line lacks %q: %v", k, line)
		}
	}
	t.Logf("log line of the request: %v", line)
	s.waitLog(t, "naming the env-configured HTTP address", func(l map[string]any) bool { return l["http"] == httpAddr })

	// Admin commands work on the same data dir while serve runs.
	tok := issueToken(t, env, "--team", "acme", "--store", "acme-shop", "--name", "beside-serve")
	if tok.TeamID != boot.TeamID || tok.StoreID == nil || *tok.StoreID != "acme-shop" {
		t.Errorf("token issue printed team %d store %v, want team %d store acme-shop", tok.TeamID, tok.StoreID, boot.TeamID)
	}
	checkPrintReceived(t, s, tok.Token, "1-1")
	createOrder(t, s, tok.Token, "acme-shop", "2", "2-1")
	if r := do(t, "GET", s.baseURL+"/api/v1/orders", tok.Token, ""); r.status != 200 {
		t.Errorf("GET /api/v1/orders with the token issued beside serve: %d %s", r.status, r.body)
	}

	t.Run("flag beats env", func(t *testing.T) {
		// The test holds PLATEN_HTTP_ADDR's port: a serve that took the
		// variable over the flag could not listen, and would never be ready.
		envLis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer envLis.Close()
		envAddr := envLis.Addr().String()
		dataDir2 := t.TempDir()
		s2, flagAddr, _ := serveOnFreePorts(t, func(flagAddr, grpcAddr string) *server {
			env2 := []string{
				"PLATEN_HTTP_ADDR=" + envAddr,
				"PLATEN_GRPC_ADDR=" + grpcAddr,
				"PLATEN_DATA_DIR=" + dataDir2,
				"PLATEN_LOG_LEVEL=info",
			}
			return startServe(t, flagAddr, env2, "--http-addr", flagAddr)
		})
		s2.waitLog(t, "naming the flag's HTTP address", func(l map[string]any) bool { return l["http"] == flagAddr })
	})
}

// TestRevocationAcrossProcesses: a token revoked by `platen admin token
// revoke` in another process gets 401 from serve within 5 s.
func TestRevocationAcrossProcesses(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	flags := []string{"--data-dir", dataDir}
	boot := bootstrap(t, nil, "--data-dir", dataDir, "--team", "acme", "--store", "acme-shop")
	s := serve(t, dataDir)

	tok := issueToken(t, nil, "--data-dir", dataDir, "--team", "acme", "--name", "revoke-me")
	if tok.StoreID != nil {
		t.Errorf("token issued without --store printed store_id %q, want null", *tok.StoreID)
	}

	rows, _ := listTokens(t, nil, append(flags, "--team", "acme")...)
	id := 0
	for _, row := range rows {
		if row.Name == "revoke-me" {
			id = row.ID
			if !strings.HasPrefix(tok.Token, row.Prefix) || row.Prefix == "" {
				t.Errorf("listed prefix %q is not a prefix of the token", row.Prefix)
			}
			if row.RevokedAt != nil || row.TeamID != boot.TeamID || row.StoreID != nil {
				t.Errorf("listed token before revocation: %+v", row)
			}
		}
	}
	if id == 0 {
		t.Fatalf("token list shows no token named revoke-me: %+v", rows)
	}

	ordersURL := s.baseURL + "/api/v1/orders"
	// Use the token just before revoking it, so that serve holds a fresh
	// cached answer for it: the worst case for revocation.
	if r := do(t, "GET", ordersURL, tok.Token, ""); r.status != 200 {
		t.Fatalf("GET /api/v1/orders before revocation: %d %s", r.status, r.body)
	}
	rv := runOK(t, nil, "admin", "token", "revoke", "--data-dir", dataDir, fmt.Sprint(id))
	revoked := time.Now()
	t.Logf("admin token revoke took %v", rv.elapsed)

	var last response
	if !poll.Within(revocationLimit, nil, func() bool {
		last = do(t, "GET", ordersURL, tok.Token, "")
		if last.status != http.StatusOK && last.status != http.StatusUnauthorized {
			t.Fatalf("GET /api/v1/orders after revocation: want 200 or 401, got %d: %s", last.status, last.body)
		}
		return last.status == http.StatusUnauthorized
	}) {
		t.Fatalf("revoked token still accepted %v after the revoke command returned (want 401 within 5 s)", time.Since(revoked))
	}
	refused := time.Now()
	delay := refused.Sub(revoked)
	t.Logf("revoked token refused %v after `admin token revoke` returned (limit %v)", delay.Round(time.Millisecond), revocationLimit)

	errBody := last.object(t)
	if code, ok := errBody["code"].(float64); !ok || code != 16 {
		t.Errorf("401 body: want code 16 (UNAUTHENTICATED), got %s", last.body)
	}
	if msg, _ := errBody["message"].(string); msg == "" {
		t.Errorf("401 body lacks a message: %s", last.body)
	}
	// It stays refused once serve reads the token again (it keeps any
	// answer for auth.RevocationDelay, a refusal too: only a clock past
	// that shows the next answer is not the cached one), and other tokens
	// of the team are unaffected.
	time.Sleep(time.Until(refused.Add(auth.RevocationDelay + 100*time.Millisecond)))
	if r := do(t, "GET", ordersURL, tok.Token, ""); r.status != http.StatusUnauthorized {
		t.Errorf("revoked token accepted again: %d %s", r.status, r.body)
	}
	if r := do(t, "GET", ordersURL, boot.Token, ""); r.status != 200 {
		t.Errorf("the bootstrap token stopped working after another token was revoked: %d %s", r.status, r.body)
	}

	rows, r := listTokens(t, []string{nonUTC}, append(flags, "--team", "acme")...)
	for _, row := range rows {
		if row.ID == id && row.RevokedAt == nil {
			t.Errorf("token list: revoked token %d has no revoked_at", id)
		}
	}
	checkUTC(t, r)
	checkUTC(t, runOK(t, []string{nonUTC}, append([]string{"admin", "team", "list"}, flags...)...))
	checkUTC(t, runOK(t, []string{nonUTC}, append([]string{"admin", "store", "list"}, flags...)...))
	// Revoking it again is an error, not a silent success.
	if r := run(t, nil, "admin", "token", "revoke", "--data-dir", dataDir, fmt.Sprint(id)); r.code == 0 {
		t.Errorf("revoking an already revoked token exited 0: %v", r)
	}
}

// TestGracefulShutdown: SIGTERM ends serve with status 0 within the
// shutdown timeout, with a log line; the data survives a restart.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	boot := bootstrap(t, nil, "--data-dir", dataDir, "--team", "acme", "--store", "acme-shop")
	const shutdownTimeout = 5 * time.Second
	var args []string

	// serve keeps its gateway socket in a temporary directory: give it one
	// of its own to see that a clean shutdown removes what it made there.
	tmp := t.TempDir()
	s, httpAddr, _ := serveOnFreePorts(t, func(httpAddr, grpcAddr string) *server {
		args = []string{"--http-addr", httpAddr, "--grpc-addr", grpcAddr, "--data-dir", dataDir, "--shutdown-timeout", shutdownTimeout.String()}
		return startServe(t, httpAddr, []string{"TMPDIR=" + tmp}, args...)
	})
	uid, _ := createOrder(t, s, boot.Token, "acme-shop", "1", "1-1")

	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v", err)
	}
	sent := time.Now()
	select {
	case <-s.done:
	case <-time.After(shutdownTimeout + 2*time.Second):
		t.Fatalf("platen serve still running %v after SIGTERM (shutdown timeout %v); stderr:\n%s", time.Since(sent), shutdownTimeout, s.stderr.String())
	}
	took := time.Since(sent)
	t.Logf("serve exited %v after SIGTERM", took.Round(time.Millisecond))
	if s.waitErr != nil {
		t.Errorf("serve after SIGTERM: %v, want exit status 0; stderr:\n%s", s.waitErr, s.stderr.String())
	}
	if took > shutdownTimeout {
		t.Errorf("shutdown took %v, more than --shutdown-timeout %v", took, shutdownTimeout)
	}
	lines := s.logLines(t)
	sawShutdown := false
	for _, l := range lines {
		msg, _ := l["msg"].(string)
		if strings.Contains(strings.ToLower(msg), "shut") {
			sawShutdown = true
		}
		if l["level"] == "ERROR" {
			t.Errorf("error logged around a clean shutdown: %v", l)
		}
	}
	if !sawShutdown {
		t.Errorf("no shutdown line in the logs:\n%s", s.stderr.String())
	}
	if out := s.stdout.String(); out != "" {
		t.Errorf("serve wrote to stdout: %q", out)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("serve left %d entries in its TMPDIR after a clean shutdown (first %s)", len(left), left[0].Name())
	}

	// Restart on the same data dir and the same ports: the ports were
	// released, and the order is still there.
	s2 := startServe(t, httpAddr, nil, args...)
	s2.waitReady(t)
	checkPrintReceived(t, s2, boot.Token, "1-1")
	r := do(t, "GET", s2.baseURL+"/api/v1/orders/"+uid, boot.Token, "")
	if r.status != 200 {
		t.Fatalf("GET the order after a restart: %d %s", r.status, r.body)
	}
	if got := r.object(t)["ecommerce_order_id"]; got != "1" {
		t.Errorf("order after restart: ecommerce_order_id %v, want \"1\": %s", got, r.body)
	}
}

// TestMigrateAndBadFlags: migrate creates the SQLite file; bad settings exit
// non-zero with a readable message.
func TestMigrateAndBadFlags(t *testing.T) {
	t.Parallel()
	t.Run("migrate", func(t *testing.T) {
		dataDir := filepath.Join(t.TempDir(), "fresh", "data")
		r := runOK(t, nil, "migrate", "--data-dir", dataDir)
		abs, err := filepath.Abs(filepath.Join(dataDir, "platen.db"))
		if err != nil {
			t.Fatal(err)
		}
		checkMigrated(t, r, "SQLite database "+abs, true)
		info, err := os.Stat(filepath.Join(dataDir, "platen.db"))
		if err != nil {
			t.Fatalf("migrate did not create the SQLite file: %v", err)
		}
		if info.Size() == 0 {
			t.Errorf("%s is empty after migrate", info.Name())
		}
		// Migrating again is harmless, and says so.
		checkMigrated(t, runOK(t, nil, "migrate", "--data-dir", dataDir), "SQLite database "+abs, false)
		// And from the environment alone.
		envDir := filepath.Join(t.TempDir(), "env")
		runOK(t, []string{"PLATEN_DATA_DIR=" + envDir}, "migrate")
		if _, err := os.Stat(filepath.Join(envDir, "platen.db")); err != nil {
			t.Errorf("migrate with PLATEN_DATA_DIR did not create the file there: %v", err)
		}
	})

	cases := []struct {
		name string
		env  []string
		args []string
		// mention must all appear in stderr.
		mention []string
	}{
		{name: "serve --log-level=loud", args: []string{"serve", "--log-level=loud"}, mention: []string{"log-level", "loud"}},
		{name: "migrate --log-level=loud", args: []string{"migrate", "--log-level=loud"}, mention: []string{"log-level", "loud"}},
		{name: "PLATEN_LOG_LEVEL=loud", env: []string{"PLATEN_LOG_LEVEL=loud"}, args: []string{"serve"}, mention: []string{"log-level", "loud"}},
		{name: "PLATEN_SHUTDOWN_TIMEOUT=soon", env: []string{"PLATEN_SHUTDOWN_TIMEOUT=soon"}, args: []string{"serve"}, mention: []string{"PLATEN_SHUTDOWN_TIMEOUT", "soon"}},
		{name: "--shutdown-timeout=0", args: []string{"serve", "--shutdown-timeout=0"}, mention: []string{"shutdown-timeout"}},
		{name: "--http-addr without port", args: []string{"serve", "--http-addr=localhost"}, mention: []string{"http-addr"}},
		{name: "unknown flag", args: []string{"serve", "--no-such-flag"}, mention: []string{"no-such-flag"}},
		{name: "bootstrap without --store", args: []string{"admin", "bootstrap", "--team", "acme"}, mention: []string{"--store"}},
		{name: "bad --database-url", args: []string{"migrate", "--database-url", "mysql://x"}, mention: []string{"mysql://x"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dataDir := t.TempDir()
			args := append(append([]string{}, c.args...), "--data-dir", dataDir)
			if c.args[0] == "serve" && !strings.Contains(strings.Join(c.args, " "), "http-addr") {
				// Never fall back on the default ports, should the
				// command get as far as listening.
				args = append(args, "--http-addr", freeAddr(t), "--grpc-addr", freeAddr(t))
			} else if c.args[0] == "serve" {
				args = append(args, "--grpc-addr", freeAddr(t))
			}
			r := run(t, c.env, args...)
			if r.code == 0 {
				t.Fatalf("want a non-zero exit: %v", r)
			}
			stderr := strings.TrimSpace(r.stderr)
			if stderr == "" {
				t.Fatalf("nothing on stderr: %v", r)
			}
			for _, m := range c.mention {
				if !strings.Contains(stderr, m) {
					t.Errorf("stderr does not mention %q: %s", m, stderr)
				}
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic:") {
				t.Errorf("stderr holds a Go panic rather than a message: %s", stderr)
			}
			if strings.TrimSpace(r.stdout) != "" {
				t.Errorf("a failing command wrote to stdout: %q", r.stdout)
			}
			t.Logf("exit %d: %s", r.code, stderr)
		})
	}
}

// migratedLine is what platen migrate prints: the database, then what
// it did.
var migratedLine = regexp.MustCompile(`^(.+): (?:(migrated), [1-9][0-9]* schema changes? applied|(schema up to date), nothing to apply)\n$`)

// checkMigrated checks that migrate printed one line naming database and
// saying it migrated it (changed) or found it up to date.
func checkMigrated(t *testing.T, r result, database string, changed bool) {
	t.Helper()
	m := migratedLine.FindStringSubmatch(r.stdout)
	switch {
	case m == nil:
		t.Errorf("migrate printed %q, want one line saying what it did", r.stdout)
	case m[1] != database:
		t.Errorf("migrate named %q, want %q", m[1], database)
	case changed && m[2] == "":
		t.Errorf("migrate of a fresh database printed %q", r.stdout)
	case !changed && m[3] == "":
		t.Errorf("migrate of a migrated database printed %q", r.stdout)
	}
}

// TestServePortInUse: an address already taken ends serve at once with a
// message naming the flag, not a hang.
func TestServePortInUse(t *testing.T) {
	t.Parallel()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	taken := lis.Addr().String()
	// --grpc-addr is taken first: should its free port be lost to another
	// process meanwhile, try again with another.
	r := run(t, nil, "serve", "--data-dir", t.TempDir(), "--http-addr", taken, "--grpc-addr", freeAddr(t))
	for attempt := 1; attempt < bindAttempts && strings.Contains(r.stderr, "--grpc-addr") && addrInUse(r.stderr); attempt++ {
		r = run(t, nil, "serve", "--data-dir", t.TempDir(), "--http-addr", taken, "--grpc-addr", freeAddr(t))
	}
	if r.code == 0 {
		t.Fatalf("serve on a taken --http-addr exited 0: %v", r)
	}
	if !strings.Contains(r.stderr, "--http-addr") {
		t.Errorf("stderr does not name --http-addr: %s", r.stderr)
	}
	t.Logf("exit %d after %v", r.code, r.elapsed.Round(time.Millisecond))
}

// TestServeAndAdminOnEveryBackend runs migrate, serve and admin beside it
// on every database the tests use (platentest.Backends): SQLite in the data
// dir, and PostgreSQL in a schema of its own, where serve makes no SQLite
// file.
func TestServeAndAdminOnEveryBackend(t *testing.T) {
	t.Parallel()
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		dataDir := t.TempDir()
		var dbFlags []string
		if databaseURL := b.NewDatabaseURL(t); databaseURL != "" {
			dbFlags = []string{"--database-url", databaseURL}
		}
		flags := append([]string{"--data-dir", dataDir}, dbFlags...)
		dialect := map[string]string{"sqlite": "sqlite3", "postgres": "postgres"}[b.Name]

		database := "SQLite database " + filepath.Join(dataDir, "platen.db")
		if len(dbFlags) > 0 {
			u, err := url.Parse(dbFlags[1])
			if err != nil {
				t.Fatal(err)
			}
			// Named without its password or parameters.
			if u.User != nil {
				u.User = url.User(u.User.Username())
			}
			u.RawQuery = ""
			database = "PostgreSQL database " + u.String()
		}
		checkMigrated(t, runOK(t, nil, append([]string{"migrate"}, flags...)...), database, true)
		checkMigrated(t, runOK(t, nil, append([]string{"migrate"}, flags...)...), database, false)
		boot := bootstrap(t, nil, append(flags, "--team", "acme", "--store", "acme-shop")...)
		s := serve(t, dataDir, dbFlags...)
		if _, err := os.Stat(filepath.Join(dataDir, "platen.db")); (err == nil) != (dialect == "sqlite3") {
			t.Errorf("on %s, the SQLite file in the data dir: %v", b.Name, err)
		}
		s.waitLog(t, "naming the "+dialect+" database", func(l map[string]any) bool { return l["database"] == dialect })

		createOrder(t, s, boot.Token, "acme-shop", "1", "1-1")
		checkPrintReceived(t, s, boot.Token, "1-1")

		// Admin beside serve.
		tok := issueToken(t, nil, append(flags, "--team", "acme", "--store", "acme-shop", "--name", "second")...)
		createOrder(t, s, tok.Token, "acme-shop", "2", "2-1")
		checkPrintReceived(t, s, tok.Token, "1-1")
		rows, _ := listTokens(t, nil, append(flags, "--team", "acme")...)
		if len(rows) != 2 {
			t.Errorf("token list: %d tokens, want 2: %+v", len(rows), rows)
		}

		// Revocation: refused within 5 s, listed in UTC.
		secondID := 0
		for _, row := range rows {
			if row.Name == "second" {
				secondID = row.ID
			}
		}
		if secondID == 0 {
			t.Fatalf("token list shows no token named second: %+v", rows)
		}
		runOK(t, nil, append([]string{"admin", "token", "revoke", fmt.Sprint(secondID)}, flags...)...)
		revoked := time.Now()
		var answer response
		if !poll.Within(revocationLimit, nil, func() bool {
			answer = do(t, "GET", s.baseURL+"/api/v1/orders", tok.Token, "")
			return answer.status == http.StatusUnauthorized
		}) {
			t.Fatalf("%s: revoked token still answered %d %v after the revoke returned", b.Name, answer.status, time.Since(revoked))
		}
		t.Logf("%s: revoked token refused %v after the revoke returned", b.Name, time.Since(revoked).Round(time.Millisecond))
		_, r := listTokens(t, []string{nonUTC}, append(flags, "--team", "acme")...)
		checkUTC(t, r)
		checkUTC(t, runOK(t, []string{nonUTC}, append([]string{"admin", "team", "list"}, flags...)...))
		checkUTC(t, runOK(t, []string{nonUTC}, append([]string{"admin", "store", "list"}, flags...)...))
	})
}

// TestRotateLinkKeys: `platen admin keys rotate-links` prints the key, when
// it rotated it and when it may be rotated again (a link's lifetime
// later); a second run replaces the key again.
func TestRotateLinkKeys(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	var first, second struct {
		Key              string    `json:"key"`
		RotatedAt        time.Time `json:"rotated_at"`
		RotateAgainAfter time.Time `json:"rotate_again_after"`
	}
	decodeOne(t, runOK(t, nil, "admin", "keys", "rotate-links", "--data-dir", dataDir), &first)
	if first.Key != "download-links" || time.Since(first.RotatedAt) > time.Minute || first.RotateAgainAfter.Sub(first.RotatedAt) != 7*24*time.Hour {
		t.Errorf("rotate-links printed %+v", first)
	}
	decodeOne(t, runOK(t, nil, "admin", "keys", "rotate-links", "--data-dir", dataDir), &second)
	if second.RotatedAt.Before(first.RotatedAt) {
		t.Errorf("the second rotation at %v, before the first at %v", second.RotatedAt, first.RotatedAt)
	}
}
