// Package grpcdecode decodes the gRPC server's requests. Before a message
// is unmarshalled its bytes are checked against the input limits (depth,
// elements, values) and for strings that are not UTF-8; and a message that
// cannot be decoded answers InvalidArgument naming the path
// (items[1].note: must be UTF-8 text), where grpc-go answers Internal,
// a server's fault, for what is the client's.
//
// grpc-go decodes a unary request before any interceptor runs, turns every
// codec error into Internal and writes that status to the client at once
// (serverStream.RecvMsg), so neither an interceptor nor a wrapped handler
// can change it afterwards. So the codec does not fail for a message that
// a guarded handler is receiving: it leaves the failure with the handler,
// which answers it. Make one Decoder per server: give the server its Codec
// and register services through its Registrar.
package grpcdecode

import (
	"context"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/inputlimit"
)

// Decoder is one server's codec and the handlers that receive through it.
type Decoder struct {
	// receiving holds, for each message a guarded handler is receiving
	// into (keyed by the message pointer), the failure the codec left.
	receiving sync.Map // any → *failure
}

type failure struct{ err error }

// New returns a Decoder.
func New() *Decoder { return &Decoder{} }

// Codec is the server's protobuf codec (grpc.ForceServerCodecV2): grpc's
// own, with the input limits checked first, and failures left with the
// guarded handler that receives the message.
func (d *Decoder) Codec() encoding.CodecV2 { return codec{d: d, base: encoding.GetCodecV2("proto")} }

type codec struct {
	d    *Decoder
	base encoding.CodecV2
}

func (c codec) Name() string { return c.base.Name() }

func (c codec) Marshal(v any) (mem.BufferSlice, error) { return c.base.Marshal(v) }

func (c codec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return c.base.Unmarshal(data, v)
	}
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	err := decode(buf.ReadOnlyData(), m)
	if err == nil {
		return nil
	}
	if f, ok := c.d.receiving.Load(v); ok {
		f.(*failure).err = err
		proto.Reset(m)
		return nil
	}
	return err
}

// decode checks b against the limits and unmarshals it into m; its errors
// are validation errors.
func decode(b []byte, m proto.Message) error {
	if err := inputlimit.CheckWire(b, m.ProtoReflect().Descriptor()); err != nil {
		return err
	}
	if err := proto.Unmarshal(b, m); err != nil {
		return apierr.Invalid("", "the request message cannot be decoded: %s", withoutProtoPrefix(err))
	}
	return nil
}

// withoutProtoPrefix drops protobuf-go's "proto: " from an error, which it
// separates with a space or a no-break space, chosen per build.
func withoutProtoPrefix(err error) string {
	msg, _ := strings.CutPrefix(err.Error(), "proto:")
	return strings.TrimLeft(msg, " \u00a0")
}

// receive runs recv (a handler's dec, or a stream's RecvMsg) into m and
// answers the codec's failure as InvalidArgument.
func (d *Decoder) receive(ctx context.Context, m any, recv func(any) error) error {
	f := &failure{}
	d.receiving.Store(m, f)
	defer d.receiving.Delete(m)
	if err := recv(m); err != nil {
		return err
	}
	if f.err != nil {
		return apierr.ToStatus(ctx, f.err).Err()
	}
	return nil
}

// Registrar registers services on s with guarded handlers.
func (d *Decoder) Registrar(s *grpc.Server) Registrar { return Registrar{Server: s, d: d} }

// Registrar registers services on a grpc.Server with guarded handlers: a
// unary handler's decode, and a stream's RecvMsg, answer a message that
// cannot be decoded as InvalidArgument. It is also what reflection.Register
// takes.
type Registrar struct {
	*grpc.Server
	d *Decoder
}

// RegisterService registers a guarded copy of desc.
func (r Registrar) RegisterService(desc *grpc.ServiceDesc, impl any) {
	r.Server.RegisterService(r.d.guard(desc), impl)
}

// guard returns a copy of desc whose handlers are guarded.
func (d *Decoder) guard(desc *grpc.ServiceDesc) *grpc.ServiceDesc {
	guarded := *desc
	guarded.Methods = make([]grpc.MethodDesc, len(desc.Methods))
	for i, m := range desc.Methods {
		m.Handler = d.guardMethod(m.Handler)
		guarded.Methods[i] = m
	}
	guarded.Streams = make([]grpc.StreamDesc, len(desc.Streams))
	for i, s := range desc.Streams {
		s.Handler = d.guardStream(s.Handler)
		guarded.Streams[i] = s
	}
	return &guarded
}

func (d *Decoder) guardMethod(h grpc.MethodHandler) grpc.MethodHandler {
	return func(srv any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
		return h(srv, ctx, func(m any) error { return d.receive(ctx, m, dec) }, interceptor)
	}
}

func (d *Decoder) guardStream(h grpc.StreamHandler) grpc.StreamHandler {
	return func(srv any, ss grpc.ServerStream) error { return h(srv, guardedStream{ss, d}) }
}

type guardedStream struct {
	grpc.ServerStream
	d *Decoder
}

func (s guardedStream) RecvMsg(m any) error {
	return s.d.receive(s.Context(), m, s.ServerStream.RecvMsg)
}
