package cluster

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fault is one fault of the run: what it does, and how long it took.
type fault struct {
	name string
	run  func(t *testing.T, c *cluster, ld *load)
	took time.Duration
}

// Fault lengths: long enough that retries, breakers and reconnects must
// work, short enough for CI.
const (
	hooksDownFor = 30 * time.Second
	dbDownFor    = 10 * time.Second
	s3DownFor    = 15 * time.Second
	// between is load with no fault between two faults, so that each
	// fault meets work already under way.
	between = 3 * time.Second
	// Renders in flight wait for their image until the fault has hit them
	// (see inFlight), at most this long.
	heldAtMost = time.Minute
)

// faults come in this order, every run.
func faults() []*fault {
	return []*fault{
		{name: "webhook receiver answers 500 for 30 s", run: hooksDown},
		{name: "kill -9 serve-1, start it again", run: killServe},
		{name: "kill -9 render-1, start it again", run: killRender},
		{name: "PostgreSQL connections reset for 10 s", run: databaseDown},
		{name: "PostgreSQL silent (packets dropped, connections open) 12 s", run: databaseSilent},
		{name: "S3 server stopped (SIGSTOP) for 15 s", run: s3Down},
		{name: "SIGTERM serve-2 with renders in flight, start it again", run: terminateServe},
	}
}

// runFaults applies every fault in turn, with load between them.
func runFaults(t *testing.T, c *cluster, ld *load, fs []*fault) {
	t.Helper()
	for _, f := range fs {
		time.Sleep(between)
		start := time.Now()
		t.Logf("fault: %s", f.name)
		f.run(t, c, ld)
		f.took = time.Since(start)
	}
	time.Sleep(between)
}

func hooksDown(t *testing.T, c *cluster, _ *load) {
	c.hooks.failing.Store(true)
	time.Sleep(hooksDownFor) // the fault's length
	c.hooks.failing.Store(false)
}

// killServe kills serve-1 while renders run: a crash mid-work, whose jobs
// the restarted serve must find and run again, while the other serve and
// the clients' retries carry the load.
func killServe(t *testing.T, c *cluster, ld *load) {
	s := c.serves[0]
	inFlight(t, c, ld)
	s.kill9(t)
	c.images.open()
	s.start(t)
	s.waitReady(t, time.Minute)
}

// killRender kills render-1 while renders run on it: the serves' calls
// to it fail and must be retried, not failed.
func killRender(t *testing.T, c *cluster, ld *load) {
	r := c.renders[0]
	inFlight(t, c, ld)
	r.kill9(t)
	c.images.open()
	r.start(t)
	r.waitTCP(t, flagValue(r.args, "--grpc-addr"), 30*time.Second)
}

func databaseDown(t *testing.T, c *cluster, _ *load) {
	c.pgProxy.Down()
	time.Sleep(dbDownFor) // the fault's length
	c.pgProxy.Up()
}

func s3Down(t *testing.T, c *cluster, _ *load) {
	c.s3.signal(syscall.SIGSTOP)
	time.Sleep(s3DownFor) // the fault's length
	c.s3.signal(syscall.SIGCONT)
}

// terminateServe stops serve-2 as an orchestrator would, with renders in
// flight that outlast the half of --shutdown-timeout (20 s) that running
// jobs get: they are stopped, and must run again, as retries, after the
// restart.
func terminateServe(t *testing.T, c *cluster, ld *load) {
	inFlight(t, c, ld)
	s := c.serves[1]
	s.signal(syscall.SIGTERM)
	stopped := s.wait(45 * time.Second)
	c.images.open()
	if !stopped {
		t.Fatalf("%s still running 45 s after SIGTERM", s.name)
	}
	if err := s.exitErr(); err != nil {
		t.Errorf("%s stopped by SIGTERM: %v, want exit status 0", s.name, err)
	}
	s.start(t)
	s.waitReady(t, time.Minute)
}

// inFlight queues four renders that wait on the slow image server, held
// there until the caller opens it again once its fault has hit them
// (within the image fetch's own 15 s, so that a held fetch is not the
// failure), and
// waits until three of them are fetching its image at once: more renders
// than one serve calls at once (--render-workers 2), so that both serves
// have some under way.
func inFlight(t *testing.T, c *cluster, ld *load) {
	t.Helper()
	c.images.shut()
	var slow []*orderRec
	for range 4 {
		n := ld.nextSeq()
		slow = append(slow, ld.createOrder(context.Background(), n, false, c.images.url(fmt.Sprintf("slow-%d", n), heldAtMost)))
	}
	if !c.images.waitHolding(3, time.Minute) {
		holding, asked := c.images.held()
		t.Fatalf("%d renders held on the image server after 1m0s, want 3; the last images asked for: %v; the slow orders' prints: %s",
			holding, asked, ld.printStatuses(slow))
	}
}

// printStatuses says where each of orders' prints is, for a failure's
// message.
func (ld *load) printStatuses(orders []*orderRec) string {
	var out []string
	for _, o := range orders {
		if o == nil {
			out = append(out, "(a create that was not acknowledged)")
			continue
		}
		ans, _, err := ld.api.send(context.Background(), "GET", "/api/v1/order-items/"+o.items[0]+"/print", nil, "")
		out = append(out, fmt.Sprintf("%s: %v %d %s", o.items[0], err, ans.status, ans.body))
	}
	return strings.Join(out, "; ")
}
