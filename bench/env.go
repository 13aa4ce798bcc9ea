package bench

import (
	"bytes"
	"context"
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
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	// storeID is the store every run bootstraps and orders into.
	storeID = "bench"
	// readyTimeout bounds the wait for /readyz after starting the server.
	readyTimeout = 30 * time.Second
	// stopTimeout bounds the wait for the server to exit after SIGTERM;
	// above platen's default --shutdown-timeout of 20s.
	stopTimeout = 30 * time.Second
	// logTail is how much of the server's log goes into an error.
	logTail = 2000
)

// database is where a run's server keeps its data.
type database interface {
	name() string
	// setup prepares the database for a run named run and returns the
	// --database-url to give platen (empty for SQLite) and how to clean up.
	setup(ctx context.Context, run string) (databaseURL string, cleanup func() error, err error)
}

type sqliteDatabase struct{}

func (sqliteDatabase) name() string { return "sqlite" }

func (sqliteDatabase) setup(context.Context, string) (string, func() error, error) {
	return "", func() error { return nil }, nil
}

// postgresDatabase runs on url in a schema created with psql for the run
// and dropped after it.
type postgresDatabase struct{ url string }

func (postgresDatabase) name() string { return "postgres" }

func (p postgresDatabase) setup(ctx context.Context, run string) (string, func() error, error) {
	u, err := url.Parse(p.url)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", nil, fmt.Errorf("-postgres %q is not a postgres:// URL", p.url)
	}
	schema := "platen_bench_" + strings.ReplaceAll(run, "-", "_")
	if err := psql(ctx, p.url, "CREATE SCHEMA "+schema); err != nil {
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	cleanup := func() error {
		// Not ctx: the schema should go even after an interrupt.
		dropCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return psql(dropCtx, p.url, "DROP SCHEMA "+schema+" CASCADE")
	}
	return u.String(), cleanup, nil
}

// pinnedCommand is the command of name with args, run under taskset on
// cpus (taskset's list, such as "0" or "0,1") when cpus is not empty.
func pinnedCommand(cpus, name string, args ...string) *exec.Cmd {
	if cpus == "" {
		return exec.Command(name, args...)
	}
	return exec.Command("taskset", append([]string{"-c", cpus, name}, args...)...)
}

func psql(ctx context.Context, databaseURL, sql string) error {
	cmd := exec.CommandContext(ctx, "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", databaseURL, "-c", sql)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("psql -c %q: %v: %s", sql, err, bytes.TrimSpace(out))
	}
	return nil
}

// env is a running platen serve with a bootstrapped token.
type env struct {
	// run is unique to the run and prefixes every id it creates.
	run        string
	baseURL    string
	storeID    string
	token      string
	seedItemID string
	// teamID is the bootstrapped team's, which print templates name.
	teamID int64

	dataDir string
	logPath string
	cleanup func() error // the database's
	cmd     *exec.Cmd
	exited  chan struct{} // closed once cmd.Wait returns, with waitErr
	waitErr error

	// databaseURL is platen's --database-url: empty for SQLite, whose file
	// is DATA_DIR/platen.db (the webhooks suite reads it after the run).
	databaseURL string
	// shopRef is the reference_number of the order shop-get reads, once
	// seedShop has made it.
	shopRef string
}

// bootstrapOutput is what `platen admin bootstrap` prints.
type bootstrapOutput struct {
	TeamID  int64  `json:"team_id"`
	StoreID string `json:"store_id"`
	Token   string `json:"token"`
}

// startEnv bootstraps a fresh data directory (and db) and starts platen
// serve on it, with extra flags, returning once /readyz answers 200. On
// success the caller must call stop.
func startEnv(ctx context.Context, platen string, db database, logw io.Writer, extra ...string) (*env, error) {
	return startEnvWith(ctx, platen, db, logw, envOptions{}, extra...)
}

// envOptions are what a few suites need of a server beyond its flags.
type envOptions struct {
	// prepare runs once the database is bootstrapped, before the server
	// starts; common are the flags that name the data dir and database to
	// platen's commands.
	prepare func(e *env, common []string) error
	// cpus pins the server to these CPUs (taskset -c) when not empty.
	cpus string
}

// startEnvWith is startEnv with opts.
func startEnvWith(ctx context.Context, platen string, db database, logw io.Writer,
	opts envOptions, extra ...string) (_ *env, err error) {
	e := &env{
		run:     strconv.FormatInt(time.Now().UnixNano(), 36),
		storeID: storeID,
		cleanup: func() error { return nil },
	}
	e.seedItemID = e.run + "-seed-item"
	e.dataDir, err = os.MkdirTemp("", "platen-bench-"+db.name()+"-")
	if err != nil {
		return nil, err
	}
	e.logPath = filepath.Join(e.dataDir, "platen.log")
	defer func() {
		if err != nil {
			err = errors.Join(err, e.stop())
		}
	}()

	databaseURL, cleanup, err := db.setup(ctx, e.run)
	if err != nil {
		return e, err
	}
	e.cleanup, e.databaseURL = cleanup, databaseURL
	common := []string{"--data-dir", e.dataDir}
	if databaseURL != "" {
		common = append(common, "--database-url", databaseURL)
	}

	if err := e.bootstrap(ctx, platen, common); err != nil {
		return e, err
	}
	if opts.prepare != nil {
		if err := opts.prepare(e, common); err != nil {
			return e, err
		}
	}

	ports, err := freePorts(2)
	if err != nil {
		return e, err
	}
	httpAddr := net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0]))
	grpcAddr := net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[1]))
	e.baseURL = "http://" + httpAddr

	logFile, err := os.Create(e.logPath)
	if err != nil {
		return e, err
	}
	defer logFile.Close() // the child has its own descriptor
	args := append([]string{"serve"}, common...)
	args = append(args, "--http-addr", httpAddr, "--grpc-addr", grpcAddr, "--access-log=false")
	args = append(args, extra...)
	// Not CommandContext: stop ends the server with SIGTERM, not SIGKILL.
	e.cmd = pinnedCommand(opts.cpus, platen, args...)
	e.cmd.Stdout, e.cmd.Stderr = logFile, logFile
	if err := e.cmd.Start(); err != nil {
		e.cmd = nil
		return e, fmt.Errorf("starting %s serve: %w", platen, err)
	}
	e.exited = make(chan struct{})
	go func() {
		e.waitErr = e.cmd.Wait()
		close(e.exited)
	}()
	fmt.Fprintf(logw, "platen-bench: %s: pid %d on %s, data in %s\n", db.name(), e.cmd.Process.Pid, e.baseURL, e.dataDir)

	if err := e.waitReady(ctx); err != nil {
		return e, e.withLog(err)
	}
	return e, nil
}

func (e *env) bootstrap(ctx context.Context, platen string, common []string) error {
	args := append([]string{"admin", "bootstrap"}, common...)
	args = append(args, "--team", "bench", "--store", e.storeID)
	cmd := exec.CommandContext(ctx, platen, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s admin bootstrap: %w: %s", platen, err, tail(stderr.Bytes()))
	}
	var out bootstrapOutput
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return fmt.Errorf("%s admin bootstrap printed %q: %w", platen, tail(stdout.Bytes()), err)
	}
	if out.Token == "" {
		return fmt.Errorf("%s admin bootstrap printed no token: %q", platen, tail(stdout.Bytes()))
	}
	e.token, e.teamID = out.Token, out.TeamID
	if out.StoreID != "" {
		e.storeID = out.StoreID
	}
	return nil
}

// admin runs `platen admin ARGS` on e's data directory and database, as
// they may while e serves, and returns what it printed on stdout.
func (e *env) admin(ctx context.Context, platen string, args ...string) ([]byte, error) {
	name := "admin"
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			break
		}
		name += " " + a
	}
	args = append(append([]string{"admin"}, args...), "--data-dir", e.dataDir)
	if e.databaseURL != "" {
		args = append(args, "--database-url", e.databaseURL)
	}
	cmd := exec.CommandContext(ctx, platen, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %s: %w: %s", platen, name, err, tail(stderr.Bytes()))
	}
	return stdout.Bytes(), nil
}

// freePorts returns n distinct free TCP ports on 127.0.0.1, holding every
// listener until all are picked. Another process could still take one
// before platen binds it; startEnv then fails with platen's error.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// waitReady polls /readyz until it answers 200, the server exits, ctx ends
// or readyTimeout passes.
func (e *env) waitReady(ctx context.Context) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(readyTimeout)
	var last string
	for {
		resp, err := client.Get(e.baseURL + "/readyz")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("platen serve not ready after %s: /readyz: %s", readyTimeout, last)
		}
		select {
		case <-e.exited:
			return fmt.Errorf("platen serve exited before it was ready: %v", e.waitErr)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// seed creates the order whose item the print scenario reads, and checks
// that its print status answers.
func (e *env) seed(ctx context.Context) error {
	client := &http.Client{Timeout: 30 * time.Second}
	req, err := e.newOrderRequest(e.run+"-seed-order", e.seedItemID)
	if err != nil {
		return err
	}
	if err := expect200(client, req.WithContext(ctx)); err != nil {
		return e.withLog(fmt.Errorf("seeding an order: %w", err))
	}
	req, err = e.newPrintRequest(e.seedItemID)
	if err != nil {
		return err
	}
	if err := expect200(client, req.WithContext(ctx)); err != nil {
		return e.withLog(fmt.Errorf("reading the seeded item's print: %w", err))
	}
	return nil
}

func expect200(client *http.Client, req *http.Request) error {
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, logTail))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s: %s", req.Method, req.URL.Path, resp.Status, bytes.TrimSpace(body))
	}
	return nil
}

// stop ends the server (see halt), cleans up the database and removes the
// data directory, unless PLATEN_BENCH_KEEP is set.
func (e *env) stop() error {
	errs := []error{e.halt()}
	if err := e.cleanup(); err != nil {
		errs = append(errs, err)
	}
	if os.Getenv("PLATEN_BENCH_KEEP") != "" { // to look at a run's database afterwards
		return errors.Join(errs...)
	}
	if err := os.RemoveAll(e.dataDir); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// halt ends the server with SIGTERM (SIGKILL after stopTimeout) and leaves
// its data, for a suite that reads the database after the run. It reports
// a server that did not exit cleanly.
func (e *env) halt() error {
	var errs []error
	if e.cmd != nil {
		if err := e.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
			errs = append(errs, fmt.Errorf("SIGTERM: %w", err))
		}
		select {
		case <-e.exited:
			if e.waitErr != nil {
				errs = append(errs, e.withLog(fmt.Errorf("platen serve exited after SIGTERM: %w", e.waitErr)))
			}
		case <-time.After(stopTimeout):
			_ = e.cmd.Process.Kill()
			<-e.exited
			errs = append(errs, e.withLog(fmt.Errorf("platen serve still running %s after SIGTERM; killed", stopTimeout)))
		}
		e.cmd = nil
	}
	return errors.Join(errs...)
}

// withLog appends the end of the server's log to err.
func (e *env) withLog(err error) error {
	b, readErr := os.ReadFile(e.logPath)
	if readErr != nil || len(bytes.TrimSpace(b)) == 0 {
		return err
	}
	return fmt.Errorf("%w\nplaten serve log (end):\n%s", err, tail(b))
}

// tail returns the last logTail bytes of b, trimmed.
func tail(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > logTail {
		b = b[len(b)-logTail:]
	}
	return string(b)
}
