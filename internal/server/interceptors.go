package server

import (
	"context"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/recovery"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/platen-print/platen/internal/inproc"
	"github.com/platen-print/platen/internal/logging"
)

// grpcMetrics count and time every gRPC call, REST ones included.
type grpcMetrics struct {
	calls   *prometheus.CounterVec
	latency *prometheus.HistogramVec
}

func newGRPCMetrics(reg prometheus.Registerer) *grpcMetrics {
	m := &grpcMetrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "platen_grpc_requests_total",
			Help: "gRPC calls by method and status code.",
		}, []string{"method", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "platen_grpc_request_duration_seconds",
			Help:    "gRPC call latency by method.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"method"}),
	}
	reg.MustRegister(m.calls, m.latency)
	return m
}

// observe gives every call a request id (the client's x-request-id when
// sent), and logs and measures the call (panics are answered by
// recoverUnary, after it in the chain, so that it measures them as Internal). Calls
// that came through the gateway (in process) are logged by it, and
// it has the request id already; here only their failures are logged.
func (m *grpcMetrics) observe(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
	start := time.Now()
	viaGateway := inproc.FromChannel(ctx)
	id := first(ctx, "x-request-id")
	if !logging.ValidRequestID(id) {
		id = logging.NewRequestID()
	}
	ctx = logging.WithRequestID(ctx, id)
	if !viaGateway {
		_ = grpc.SetHeader(ctx, metadata.Pairs("x-request-id", id))
	}
	defer func() {
		code := status.Code(err)
		elapsed := time.Since(start)
		m.calls.WithLabelValues(info.FullMethod, code.String()).Inc()
		m.latency.WithLabelValues(info.FullMethod).Observe(elapsed.Seconds())
		if !viaGateway || code == codes.Internal || code == codes.Unknown {
			slog.LogAttrs(ctx, slog.LevelInfo, "grpc call", slog.String("method", info.FullMethod),
				slog.String("code", code.String()), slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000))
		}
	}()
	return handler(ctx, req)
}

// Panics in a handler, or in an interceptor after these in the chain, are
// answered Internal by go-grpc-middleware's recovery interceptors, and
// logged by recovered.
var (
	recoverUnary  = recovery.UnaryServerInterceptor(recovery.WithRecoveryHandlerContext(recovered))
	recoverStream = recovery.StreamServerInterceptor(recovery.WithRecoveryHandlerContext(recovered))
)

// recovered logs a panic with the stack of where it happened (it runs in the
// deferred recover, so the panicking frames are still on the stack) and
// answers Internal without the panic's text, which may hold anything.
func recovered(ctx context.Context, p any) error {
	method, _ := grpc.Method(ctx)
	slog.ErrorContext(ctx, "panic in gRPC handler", "method", method, "panic", p, "stack", string(debug.Stack()))
	return status.Error(codes.Internal, "internal error")
}

// first reads one metadata value without copying the whole metadata map, as
// metadata.FromIncomingContext would on every call.
func first(ctx context.Context, key string) string {
	if v := metadata.ValueFromIncomingContext(ctx, key); len(v) > 0 {
		return v[0]
	}
	return ""
}
