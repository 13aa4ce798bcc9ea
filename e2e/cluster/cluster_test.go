package cluster

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"
)

// Load bounds: each worker does at most opsPerWorker operations, one every
// pace, and stops when the faults are over, whichever comes first.
const (
	workers      = 3
	opsPerWorker = 200
	pace         = 500 * time.Millisecond
	// settleWithin bounds the wait, after the load, for every print to end,
	// the queues to drain and every ready event to arrive; webhook retries
	// after the receiver's 500s come a minute apart, and a paused endpoint
	// is probed after 30 s.
	settleWithin = 4 * time.Minute
)

// TestCluster runs the cluster under load through its faults, then checks
// and prints the invariants. See the package comment.
func TestCluster(t *testing.T) {
	if os.Getenv("PLATEN_TEST_CLUSTER") != "1" {
		t.Skip("the cluster test runs with PLATEN_TEST_CLUSTER=1 (make test-cluster): it needs PostgreSQL, the SeaweedFS binary and a few minutes")
	}
	if os.Getenv("PLATEN_TEST_POSTGRES_URL") == "" {
		t.Fatal("PLATEN_TEST_POSTGRES_URL must name the PostgreSQL server the cluster uses")
	}
	start := time.Now()
	c := startCluster(t)
	t.Logf("cluster up in %s", time.Since(start).Round(time.Millisecond))
	ld := &load{api: newAPI(c), l: newLedger()}
	ld.registerDesigns(t)
	ld.setupBatches(t, c)

	fs := faults()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() { ld.run(context.Background(), stop, opsPerWorker, pace) })
	}
	runFaults(t, c, ld, fs)
	t.Logf("faults done after %s; stopping the load", time.Since(start).Round(time.Second))
	close(stop)
	wg.Wait()
	t.Logf("load and faults done after %s; settling", time.Since(start).Round(time.Second))

	ps := c.waitSettled(t, ld, settleWithin)
	rows := []row{
		c.checkCreates(t, ld),
		checkPrints(ps),
		c.checkEvents(ps),
		c.checkFiles(t, ps),
		c.checkQueues(t, ps),
		ld.api.watch.row(),
	}
	printTable(t, fs, rows, time.Since(start))
}
