package server_test

import (
	"context"
	"errors"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
	"github.com/platen-print/platen/internal/server"
)

// Once Shutdown returns, no goroutine the server started is left running:
// each was waited for, so none outlives the database it uses. The server
// has served both ports and its debug port, and a readiness probe is still
// running, left by a caller that gave up on it, as a load balancer's probe
// of a slow database is.
func TestShutdownLeavesNoGoroutine(t *testing.T) {
	platentest.EachBackendInTurn(t, func(t *testing.T, b platentest.Backend) {
		cfg := config.Default()
		cfg.HTTPAddr, cfg.GRPCAddr, cfg.DebugAddr = "127.0.0.1:0", "127.0.0.1:0", "127.0.0.1:0"
		cfg.DataDir = t.TempDir()
		cfg.DatabaseURL = b.NewDatabaseURL(t)
		cfg.AccessLog = false
		before := goleak.IgnoreCurrent()
		ours := platenGoroutines()

		srv := platentest.StartConfig(t, cfg)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		for _, p := range []string{"/healthz", "/api/v1/orders"} {
			if r := srv.Do(t, "GET", p, acme.Token, nil); r.Status != 200 {
				t.Fatalf("GET %s: %d %s", p, r.Status, r.Raw)
			}
		}
		conn := srv.GRPC(t)
		if _, err := healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{}); err != nil {
			t.Fatalf("gRPC health: %v", err)
		}
		conn.Close()
		probing := make(chan struct{})
		gaveUp, giveUp := context.WithCancel(context.Background())
		go func() { <-probing; giveUp() }()
		err := server.ProbeReadiness(gaveUp, srv.Server, func(ctx context.Context) error {
			close(probing)
			<-ctx.Done() // a database that does not answer
			return ctx.Err()
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("a readiness check given up: %v", err)
		}

		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Fatalf("shutdown: %v", err)
		}
		// A goroutine that was waited for may still be leaving when
		// Shutdown returns (after its last statement, before it is
		// gone), for microseconds; one that was not lives on.
		var left map[string]string
		poll.Within(100*time.Millisecond, nil, func() bool { left = newGoroutines(ours); return len(left) == 0 })
		for _, stack := range left {
			t.Errorf("a goroutine of the server outlived Shutdown:\n%s", stack)
		}
		// The rest, of the libraries the server uses; the test's own
		// keep-alive connections are the client's, not the server's.
		http.DefaultClient.CloseIdleConnections()
		goleak.VerifyNone(t, before)
	})
}

// newGoroutines are the goroutines Platen's code started that are not in
// before.
func newGoroutines(before map[string]string) map[string]string {
	out := platenGoroutines()
	for id := range before {
		delete(out, id)
	}
	return out
}

// platenGoroutines are the running goroutines that run Platen's code,
// by id: a frame of it in their stack (its test helpers' aside), the
// test's own goroutines aside.
func platenGoroutines() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[string]string{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		if _, creator, _ := strings.Cut(g, "\ncreated by "); strings.HasPrefix(creator, "testing.") || !runsPlaten(g) {
			continue
		}
		id, _, _ := strings.Cut(strings.TrimPrefix(g, "goroutine "), " ")
		out[id] = g
	}
	return out
}

// runsPlaten reports whether a goroutine's stack has a frame of Platen's
// code other than the test helpers'.
func runsPlaten(stack string) bool {
	const module = "github.com/platen-print/platen/"
	for _, line := range strings.Split(stack, "\n") {
		if strings.HasPrefix(line, module) && !strings.HasPrefix(line, module+"internal/platentest.") {
			return true
		}
	}
	return false
}
