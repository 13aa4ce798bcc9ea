package renderproc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
)

// MaxMessageBytes bounds a request or response on both sides: a response
// carries every rendered file, and a PNG of a large page at print DPI runs
// to hundreds of megabytes. gRPC's default is 4 MiB.
const MaxMessageBytes = 512 << 20

// stopTimeout is how long a stopping `platen render` lets renders in
// flight finish before it cuts them off.
const stopTimeout = 20 * time.Second

// Local returns a client that calls s in this process: no network, no
// serialisation. Call options are ignored.
func Local(s renderv1.RenderServiceServer) renderv1.RenderServiceClient {
	return local{s}
}

type local struct{ s renderv1.RenderServiceServer }

func (l local) Render(ctx context.Context, req *renderv1.RenderRequest, _ ...grpc.CallOption) (*renderv1.RenderResponse, error) {
	return l.s.Render(ctx, req)
}

// Dial returns one client of every `platen render` at addrs (host:port),
// spreading calls over them round-robin, and what closes its connections.
// It connects lazily: a process that is down fails only the calls sent to
// it, with UNAVAILABLE, until it is back.
func Dial(addrs []string) (renderv1.RenderServiceClient, io.Closer, error) {
	if len(addrs) == 0 {
		return nil, nil, errors.New("no render addresses")
	}
	state := resolver.State{}
	for _, addr := range addrs {
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return nil, nil, fmt.Errorf("%q: %w", addr, err)
		}
		state.Addresses = append(state.Addresses, resolver.Address{Addr: addr})
	}
	// A resolver of our own, given to this client only, holds the fixed
	// list; DNS would give one name's addresses, not a list of names.
	r := manual.NewBuilderWithScheme("platen-render")
	r.InitialState(state)
	conn, err := grpc.NewClient(r.Scheme()+":///render",
		grpc.WithResolvers(r),
		grpc.WithDefaultServiceConfig(`{"loadBalancingConfig": [{"round_robin": {}}]}`),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(MaxMessageBytes), grpc.MaxCallRecvMsgSize(MaxMessageBytes)),
	)
	if err != nil {
		return nil, nil, err
	}
	return renderv1.NewRenderServiceClient(conn), conn, nil
}

// Serve is `platen render`: srv over gRPC on addr, with the health service
// and reflection, until ctx ends.
func Serve(ctx context.Context, addr string, srv renderv1.RenderServiceServer) error {
	lis, err := Listen(addr)
	if err != nil {
		return err
	}
	return ServeListener(ctx, lis, srv)
}

// Listen takes addr for Serve; "127.0.0.1:0" takes a free port, which
// lis.Addr() then tells.
func Listen(addr string) (net.Listener, error) {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on --grpc-addr: %w", err)
	}
	return lis, nil
}

// ServeListener serves srv on lis until ctx ends, then lets calls in
// flight finish for up to 20 s. It closes lis.
func ServeListener(ctx context.Context, lis net.Listener, srv renderv1.RenderServiceServer) error {
	return serveListener(ctx, lis, srv)
}

// serveListener is ServeListener for any implementation, with extra server
// options: tests count calls with an interceptor.
func serveListener(ctx context.Context, lis net.Listener, srv renderv1.RenderServiceServer, opts ...grpc.ServerOption) error {
	opts = append([]grpc.ServerOption{
		grpc.MaxRecvMsgSize(MaxMessageBytes),
		grpc.MaxSendMsgSize(MaxMessageBytes),
	}, opts...)
	gs := grpc.NewServer(opts...)
	renderv1.RegisterRenderServiceServer(gs, srv)
	hs := health.NewServer() // the whole server ("") starts SERVING
	hs.SetServingStatus(renderv1.RenderService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(gs, hs)
	reflection.Register(gs)

	served := make(chan error, 1)
	go func() { served <- gs.Serve(lis) }()
	slog.Info("platen render serving", "grpc", lis.Addr().String())
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	slog.Info("platen render shutting down")
	// NOT_SERVING first, so that health-checking balancers send no more.
	hs.Shutdown()
	stopped := make(chan struct{})
	go func() { gs.GracefulStop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(stopTimeout):
		gs.Stop()
	}
	if err := <-served; err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		return err
	}
	return nil
}
