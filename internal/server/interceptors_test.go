package server

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
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
	_, err := m.observe(context.Background(), nil, info, panickingHandler)
	if status.Code(err) != codes.Internal {
		t.Errorf("a panicking handler answered %v, want Internal", err)
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
