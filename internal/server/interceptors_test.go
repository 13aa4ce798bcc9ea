package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A gRPC handler that panics answers Internal, and the log's record of the
// panic carries the stack of where it happened. (No handler of the real
// services panics on purpose, so the interceptor is called directly.)
func TestGRPCPanicIsLoggedWithItsStack(t *testing.T) {
	var logs bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(&logs, nil)))
	defer slog.SetDefault(old)

	m := newGRPCMetrics(prometheus.NewRegistry())
	info := &grpc.UnaryServerInfo{FullMethod: "/platen.v1.OrderService/GetOrder"}
	_, err := m.observe(context.Background(), nil, info, func(ctx context.Context, req any) (any, error) {
		return recoverUnary(ctx, req, info, panickingHandler)
	})
	if status.Code(err) != codes.Internal || status.Convert(err).Message() != "internal error" {
		t.Errorf("a panicking handler answered %v, want Internal \"internal error\"", err)
	}
	if n := testutil.ToFloat64(m.calls.WithLabelValues(info.FullMethod, "Internal")); n != 1 {
		t.Errorf("the metrics counted %v Internal calls, want 1", n)
	}
	var found bool
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("a log line is not JSON: %q", line)
		}
		if rec["msg"] != "panic in gRPC handler" {
			continue
		}
		found = true
		if stack, _ := rec["stack"].(string); !strings.Contains(stack, "server.panickingHandler") {
			t.Errorf("the record's stack does not show where the panic happened:\n%s", stack)
		}
	}
	if !found {
		t.Fatalf("no record of the panic in the log:\n%s", logs.String())
	}
}

func panickingHandler(context.Context, any) (any, error) { panic("a handler's bug") }

// A streaming handler that panics answers Internal too, instead of taking
// the process down.
func TestGRPCStreamPanicAnswersInternal(t *testing.T) {
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(io.Discard, nil)))
	defer slog.SetDefault(old)

	err := recoverStream(nil, contextStream{ctx: context.Background()}, &grpc.StreamServerInfo{FullMethod: "/grpc.health.v1.Health/Watch"},
		func(any, grpc.ServerStream) error { panic("a stream handler's bug") })
	if status.Code(err) != codes.Internal {
		t.Errorf("a panicking stream handler answered %v, want Internal", err)
	}
}

// contextStream is a server stream that only has a context.
type contextStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s contextStream) Context() context.Context { return s.ctx }
