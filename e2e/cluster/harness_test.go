package cluster

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the pgx driver for the test's own queries
	"github.com/riverqueue/river/rivertype"

	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
	"github.com/platen-print/platen/internal/queue"
)

// The S3 bucket and its credentials, given to SeaweedFS and to the serves.
const (
	bucket      = "prints"
	s3AccessKey = "platen-cluster"
	s3SecretKey = "platen-cluster-secret"
	storeID     = "cluster-shop"
)

// cluster is every process of the test and what they share.
type cluster struct {
	dir      string
	platen   string // the built binary
	db       *sql.DB
	dbURL    string // through pgProxy
	pgProxy  platentest.Outage
	s3       *proc
	s3URL    string // the S3 endpoint, http://127.0.0.1:PORT
	renders  []*proc
	serves   []*serveProc
	hooks    *receiver
	token    string
	teamID   int
	images   *slowImages
	s3Client *s3Client
}

// serveProc is a `platen serve` and its REST base URL.
type serveProc struct {
	*proc
	base string
}

// startCluster brings every process up, in dependency order.
func startCluster(t *testing.T) *cluster {
	t.Helper()
	c := &cluster{dir: t.TempDir()}
	if keep := os.Getenv("PLATEN_TEST_CLUSTER_DIR"); keep != "" {
		// The processes' logs and data stay there after the run.
		c.dir = keep
		if err := os.MkdirAll(keep, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c.platen = buildPlaten(t, c.dir)
	c.startDatabase(t)
	c.startS3(t)
	c.hooks = startReceiver(t)
	c.images = startSlowImages(t)
	c.bootstrap(t)
	for i := range 2 {
		c.renders = append(c.renders, c.startRender(t, i))
	}
	for i := range 2 {
		c.serves = append(c.serves, c.startServe(t, i))
	}
	return c
}

// buildPlaten builds cmd/platen under a name of its own, so that nobody's
// `pkill platen` meant for another server stops the test's.
func buildPlaten(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "platen-cluster")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/platen")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/platen: %v\n%s", err, out)
	}
	return bin
}

// startDatabase makes a database of the test's own on the machine's
// PostgreSQL server (dropped at the end), reached through a loopback
// proxy: the server is shared with other work, so an outage is the proxy
// resetting every connection, never a restart of the server.
func (c *cluster) startDatabase(t *testing.T) {
	t.Helper()
	admin, err := sql.Open("pgx", os.Getenv("PLATEN_TEST_POSTGRES_URL"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	var suffix [6]byte
	_, _ = rand.Read(suffix[:])
	name := "platen_cluster_" + hex.EncodeToString(suffix[:])
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(os.Getenv("PLATEN_TEST_POSTGRES_URL"))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	direct := u.String()
	c.db, err = sql.Open("pgx", direct)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.db.Close() })
	addr, outage := platentest.StartTCPProxy(t, u.Host)
	u.Host = addr
	c.dbURL, c.pgProxy = u.String(), outage
}

// env is the children's environment: the S3 credentials, and nothing of
// the machine's own AWS or PLATEN settings.
func (c *cluster) env() []string {
	none := filepath.Join(c.dir, "no-aws-config")
	return childEnv(
		"AWS_ACCESS_KEY_ID="+s3AccessKey, "AWS_SECRET_ACCESS_KEY="+s3SecretKey,
		"AWS_CONFIG_FILE="+none, "AWS_SHARED_CREDENTIALS_FILE="+none, "AWS_EC2_METADATA_DISABLED=true",
	)
}

// blobURL is --blob-url for the SeaweedFS bucket.
func (c *cluster) blobURL() string {
	return "s3://" + bucket + "?endpoint=" + url.QueryEscape(c.s3URL) + "&use_path_style=true&disable_https=true&region=us-east-1"
}

// bootstrap migrates the database and makes the team, the store, its
// token and its webhook endpoint (the receiver, on loopback as the serves
// may deliver: --allow-private-network).
func (c *cluster) bootstrap(t *testing.T) {
	t.Helper()
	runOut(t, c.env(), c.platen, "migrate", "--database-url", c.dbURL, "--data-dir", c.dir)
	out := runOut(t, c.env(), c.platen, "admin", "bootstrap", "--database-url", c.dbURL, "--data-dir", c.dir,
		"--team", "Cluster Prints", "--store", storeID, "--webhook-url", c.hooks.url(), "--allow-private-network")
	var boot struct {
		TeamID        int    `json:"team_id"`
		Token         string `json:"token"`
		WebhookSecret string `json:"webhook_secret"`
	}
	if err := json.Unmarshal(out, &boot); err != nil {
		t.Fatalf("bootstrap output %q: %v", out, err)
	}
	c.token, c.teamID = boot.Token, boot.TeamID
	c.hooks.mu.Lock()
	c.hooks.secret = boot.WebhookSecret
	c.hooks.mu.Unlock()
}

// startRender starts `platen render` number i and waits until it listens.
func (c *cluster) startRender(t *testing.T, i int) *proc {
	t.Helper()
	addr := freeAddr(t)
	p := newProc(t, c.dir, fmt.Sprintf("render-%d", i+1), c.platen, c.env(),
		"render", "--grpc-addr", addr, "--allow-private-network")
	p.start(t)
	p.waitTCP(t, addr, 30*time.Second)
	return p
}

// renderAddrs are the render processes' addresses, for --render-addr.
func (c *cluster) renderAddrs() string {
	var addrs []string
	for _, r := range c.renders {
		addrs = append(addrs, flagValue(r.args, "--grpc-addr"))
	}
	return strings.Join(addrs, ",")
}

// startServe starts `platen serve` number i on both render processes and
// waits until it is ready.
func (c *cluster) startServe(t *testing.T, i int) *serveProc {
	t.Helper()
	httpAddr, grpcAddr := freeAddr(t), freeAddr(t)
	dataDir := filepath.Join(c.dir, fmt.Sprintf("serve-%d", i+1))
	p := newProc(t, c.dir, fmt.Sprintf("serve-%d", i+1), c.platen, c.env(), "serve",
		"--http-addr", httpAddr, "--grpc-addr", grpcAddr, "--data-dir", dataDir,
		"--database-url", c.dbURL, "--blob-url", c.blobURL(), "--render-addr", c.renderAddrs(),
		"--allow-private-network", "--access-log=false",
		// Two renders at once per serve, whatever the machine's CPUs: the
		// faults count on it to know that both serves have renders in flight.
		"--render-workers", "2")
	s := &serveProc{proc: p, base: "http://" + httpAddr}
	s.start(t)
	s.waitReady(t, time.Minute)
	return s
}

// waitReady polls /readyz until it answers 200.
func (s *serveProc) waitReady(t *testing.T, within time.Duration) {
	t.Helper()
	var err error
	if !poll.Within(within, nil, func() bool {
		var resp *http.Response
		if resp, err = http.Get(s.base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return true
			}
		}
		if s.exited() {
			t.Fatalf("%s exited before it was ready", s.name)
		}
		return false
	}) {
		t.Fatalf("%s not ready after %s (last: %v)", s.name, within, err)
	}
}

// flagValue is the value after name in args.
func flagValue(args []string, name string) string {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// jobs lists the cluster's queued jobs, every kind and state (read
// directly, not through the proxy).
func (c *cluster) jobs(t *testing.T) []*rivertype.JobRow {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	jobs, err := queue.Jobs(ctx, c.db, "postgres")
	if err != nil {
		t.Fatalf("list the jobs: %v", err)
	}
	return jobs
}

// count runs a count(*) query on the test's database (directly, not
// through the proxy).
func (c *cluster) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var n int
	if err := c.db.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}
