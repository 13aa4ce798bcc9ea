// Package inproc is a gRPC channel inside the process: the REST gateway's
// calls run the gRPC server's own interceptors and handlers directly, on
// the caller's goroutine, with no socket, HTTP/2 framing or protobuf
// encoding between the two.
//
// It replaces a gRPC client of the same server over a unix socket, which
// spent about a quarter of a small GET's CPU on the hop (BENCHMARKS.md).
// grpchan's inprocgrpc does the same job but runs each call on a fresh
// goroutine, and a fresh goroutine re-grows its stack through SQLite on
// every call (a tenth of the CPU when gRPC did the same; see
// grpc.NumStreamWorkers in internal/server). Streams are not served here:
// the gateway has none.
package inproc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// Channel is both a grpc.ServiceRegistrar (register the services on it as
// on the grpc.Server) and a grpc.ClientConnInterface (give it to the
// generated clients).
type Channel struct {
	methods     map[string]method // by full method name, "/pkg.Service/Method"
	interceptor grpc.UnaryServerInterceptor

	// mu guards stopped against calls starting while Stop waits for
	// running ones.
	mu      sync.RWMutex
	stopped bool
	running sync.WaitGroup
}

type method struct {
	impl    any
	handler grpc.MethodHandler
}

var (
	_ grpc.ServiceRegistrar    = (*Channel)(nil)
	_ grpc.ClientConnInterface = (*Channel)(nil)
)

// New returns a channel whose calls pass through interceptors, in order,
// as a grpc.Server built with grpc.ChainUnaryInterceptor(interceptors...)
// would pass them.
func New(interceptors ...grpc.UnaryServerInterceptor) *Channel {
	return &Channel{methods: map[string]method{}, interceptor: chain(interceptors)}
}

// RegisterService makes impl's unary methods callable. Call it before the
// first call: the channel is not safe for registering and calling at once.
func (c *Channel) RegisterService(desc *grpc.ServiceDesc, impl any) {
	for _, m := range desc.Methods {
		c.methods["/"+desc.ServiceName+"/"+m.MethodName] = method{impl: impl, handler: m.Handler}
	}
}

// Invoke runs a unary call: the request is copied into the handler's own
// message, as the server would decode it, and the answer into reply. As
// over a connection, the server sees the caller's outgoing metadata as
// incoming, the header and trailer it sets reach grpc.Header and
// grpc.Trailer, and an error that is not a status arrives as Unknown.
func (c *Channel) Invoke(ctx context.Context, fullMethod string, req, reply any, opts ...grpc.CallOption) error {
	m, ok := c.methods[fullMethod]
	if !ok {
		return status.Errorf(codes.Unimplemented, "unknown method %s", fullMethod)
	}
	if !c.begin() {
		return status.Error(codes.Unavailable, "the server is stopping")
	}
	defer c.running.Done()
	stream := &transportStream{method: fullMethod}
	resp, err := m.handler(m.impl, serverContext(ctx, stream), func(in any) error { return copyMessage(in, req) }, c.interceptor)
	stream.deliver(opts)
	if err != nil {
		return asStatus(err)
	}
	if err := copyMessage(reply, resp); err != nil {
		return status.Error(codes.Internal, err.Error())
	}
	return nil
}

// begin counts a call in, unless the channel is stopped.
func (c *Channel) begin() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.stopped {
		return false
	}
	c.running.Add(1)
	return true
}

// Stop refuses new calls and waits for the running ones, as
// grpc.WaitForHandlers makes a grpc.Server's Stop wait: no handler outlives
// the database it uses.
func (c *Channel) Stop() {
	c.mu.Lock()
	c.stopped = true
	c.mu.Unlock()
	c.running.Wait()
}

// NewStream refuses: the channel serves unary calls only.
func (c *Channel) NewStream(context.Context, *grpc.StreamDesc, string, ...grpc.CallOption) (grpc.ClientStream, error) {
	return nil, status.Error(codes.Unimplemented, "inproc: streams are not served in process")
}

// Addr is the peer address of every call on a channel.
var Addr net.Addr = addr{}

type addr struct{}

func (addr) Network() string { return "inproc" }
func (addr) String() string  { return "inproc" }

var channelPeer = peer.Peer{Addr: Addr}

// FromChannel reports whether the call of server context ctx came through
// a Channel.
func FromChannel(ctx context.Context) bool {
	p, ok := peer.FromContext(ctx)
	return ok && p.Addr == Addr
}

// serverContext is ctx as a server handler would see it.
func serverContext(ctx context.Context, stream *transportStream) context.Context {
	md, _ := metadata.FromOutgoingContext(ctx)
	ctx = metadata.NewIncomingContext(ctx, md)
	ctx = peer.NewContext(ctx, &channelPeer)
	return grpc.NewContextWithServerTransportStream(ctx, stream)
}

// copyMessage fills dst, a fresh message, with src: the handler and the
// caller never share a message, as they do not over a connection.
func copyMessage(dst, src any) error {
	d, ok := dst.(proto.Message)
	s, ok2 := src.(proto.Message)
	if !ok || !ok2 {
		return fmt.Errorf("inproc: %T and %T are not both protobuf messages", dst, src)
	}
	proto.Merge(d, s)
	return nil
}

// asStatus is the error a client over a connection would get.
func asStatus(err error) error {
	if _, ok := status.FromError(err); ok {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return status.FromContextError(err).Err()
	}
	return status.Error(codes.Unknown, err.Error())
}

// chain nests interceptors, the first outermost.
func chain(interceptors []grpc.UnaryServerInterceptor) grpc.UnaryServerInterceptor {
	if len(interceptors) == 0 {
		return nil
	}
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		return interceptors[0](ctx, req, info, next(interceptors[1:], info, handler))
	}
}

// next is the handler that runs the rest of the chain, then handler.
func next(rest []grpc.UnaryServerInterceptor, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) grpc.UnaryHandler {
	if len(rest) == 0 {
		return handler
	}
	return func(ctx context.Context, req any) (any, error) {
		return rest[0](ctx, req, info, next(rest[1:], info, handler))
	}
}

// transportStream collects the header and trailer a handler sets, for the
// caller's grpc.Header and grpc.Trailer options.
type transportStream struct {
	method string

	mu              sync.Mutex
	header, trailer metadata.MD
}

var _ grpc.ServerTransportStream = (*transportStream)(nil)

func (s *transportStream) Method() string { return s.method }

func (s *transportStream) SetHeader(md metadata.MD) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.header = metadata.Join(s.header, md)
	return nil
}

// SendHeader has nothing to send ahead of the answer: the header arrives
// with it.
func (s *transportStream) SendHeader(md metadata.MD) error { return s.SetHeader(md) }

func (s *transportStream) SetTrailer(md metadata.MD) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.trailer = metadata.Join(s.trailer, md)
	return nil
}

// deliver hands the header, trailer and peer to the call's options.
func (s *transportStream) deliver(opts []grpc.CallOption) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range opts {
		switch o := o.(type) {
		case grpc.HeaderCallOption:
			*o.HeaderAddr = s.header
		case grpc.TrailerCallOption:
			*o.TrailerAddr = s.trailer
		case grpc.PeerCallOption:
			*o.PeerAddr = channelPeer
		}
	}
}
