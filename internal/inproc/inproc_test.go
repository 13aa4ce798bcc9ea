package inproc_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/platen-print/platen/internal/inproc"
)

// checker is a health service whose Check answers by the service named.
type checker struct {
	healthpb.UnimplementedHealthServer
	started chan struct{} // "slow": closed once the call runs
	release chan struct{} // "slow": the call returns once this closes
}

func (c *checker) Check(ctx context.Context, in *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	switch in.Service {
	case "plain-error":
		return nil, errors.New("disk on fire")
	case "status-error":
		return nil, status.Error(codes.NotFound, "order not found")
	case "slow":
		close(c.started)
		<-c.release
	case "echo":
		md, _ := metadata.FromIncomingContext(ctx)
		if got := md.Get("authorization"); len(got) != 1 || got[0] != "Bearer t" {
			return nil, status.Errorf(codes.Unauthenticated, "authorization %q", got)
		}
		if !inproc.FromChannel(ctx) {
			return nil, status.Error(codes.Internal, "peer is not the channel")
		}
		if err := grpc.SetHeader(ctx, metadata.Pairs("x-status", "201")); err != nil {
			return nil, err
		}
		if err := grpc.SetTrailer(ctx, metadata.Pairs("x-done", "yes")); err != nil {
			return nil, err
		}
	}
	in.Service = "changed by the handler"
	return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}, nil
}

// recorder is an interceptor noting its name, for the order of the chain.
func recorder(name string, calls *[]string) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		*calls = append(*calls, name+" "+info.FullMethod)
		return handler(ctx, req)
	}
}

func newChannel(calls *[]string) (*inproc.Channel, *checker) {
	c := inproc.New(recorder("outer", calls), recorder("inner", calls))
	svc := &checker{started: make(chan struct{}), release: make(chan struct{})}
	healthpb.RegisterHealthServer(c, svc)
	return c, svc
}

func TestCallLikeOverAConnection(t *testing.T) {
	var calls []string
	ch, _ := newChannel(&calls)
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer t")
	req := &healthpb.HealthCheckRequest{Service: "echo"}
	var header, trailer metadata.MD
	resp, err := healthpb.NewHealthClient(ch).Check(ctx, req, grpc.Header(&header), grpc.Trailer(&trailer))
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("status %v, want SERVING", resp.GetStatus())
	}
	if req.Service != "echo" {
		t.Errorf("the caller's request became %q: the handler must get its own copy", req.Service)
	}
	if got := header.Get("x-status"); len(got) != 1 || got[0] != "201" {
		t.Errorf("header x-status %q, want [201]", got)
	}
	if got := trailer.Get("x-done"); len(got) != 1 || got[0] != "yes" {
		t.Errorf("trailer x-done %q, want [yes]", got)
	}
	want := []string{"outer /grpc.health.v1.Health/Check", "inner /grpc.health.v1.Health/Check"}
	if len(calls) != 2 || calls[0] != want[0] || calls[1] != want[1] {
		t.Errorf("interceptors ran as %q, want %q", calls, want)
	}
}

func TestErrorsAreStatuses(t *testing.T) {
	var calls []string
	ch, _ := newChannel(&calls)
	client := healthpb.NewHealthClient(ch)
	for _, tc := range []struct {
		service string
		code    codes.Code
		message string
	}{
		{"plain-error", codes.Unknown, "disk on fire"},
		{"status-error", codes.NotFound, "order not found"},
	} {
		t.Run(tc.service, func(t *testing.T) {
			_, err := client.Check(context.Background(), &healthpb.HealthCheckRequest{Service: tc.service})
			st, ok := status.FromError(err)
			if !ok || st.Code() != tc.code || st.Message() != tc.message {
				t.Errorf("error %v, want %s %q", err, tc.code, tc.message)
			}
		})
	}
	_, err := client.Watch(context.Background(), &healthpb.HealthCheckRequest{})
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("a stream: %v, want Unimplemented", err)
	}
	err = ch.Invoke(context.Background(), "/grpc.health.v1.Health/Nope", &healthpb.HealthCheckRequest{}, &healthpb.HealthCheckResponse{})
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("an unknown method: %v, want Unimplemented", err)
	}
}

// TestStopWaitsForRunningCalls: Stop returns only once the running call
// has. In a synctest bubble: Stop is seen blocked (synctest.Wait: every
// other goroutine of the bubble waits) before the call is released, so a
// Stop that returned at once would be caught, however slow the machine.
func TestStopWaitsForRunningCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var calls []string
		ch, svc := newChannel(&calls)
		client := healthpb.NewHealthClient(ch)
		done := make(chan error, 1)
		go func() {
			_, err := client.Check(context.Background(), &healthpb.HealthCheckRequest{Service: "slow"})
			done <- err
		}()
		<-svc.started
		stopped := make(chan struct{})
		go func() { ch.Stop(); close(stopped) }()
		synctest.Wait()
		select {
		case <-stopped:
			t.Error("Stop returned while a call was running")
		default:
		}
		close(svc.release)
		<-stopped
		if err := <-done; err != nil {
			t.Errorf("the running call: %v", err)
		}
		_, err := client.Check(context.Background(), &healthpb.HealthCheckRequest{Service: "echo"})
		if status.Code(err) != codes.Unavailable {
			t.Errorf("a call after Stop: %v, want Unavailable", err)
		}
	})
}
