package server

import (
	"context"
	"log/slog"
	"reflect"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/platen-print/platen/internal/readiness"
)

// RegisteredTypes are the types registerServices registers, by service.
func (s *Server) RegisteredTypes() map[protoreflect.FullName]reflect.Type {
	rec := typeRecorder{}
	s.registerServices(rec)
	return rec
}

type typeRecorder map[protoreflect.FullName]reflect.Type

func (r typeRecorder) RegisterService(desc *grpc.ServiceDesc, impl any) {
	r[protoreflect.FullName(desc.ServiceName)] = reflect.TypeOf(impl)
}

// ProbeReadiness has /readyz's check run probe in place of the database's
// and asks it once, as a request does, giving up when ctx ends. Call it
// before any request to /readyz: it replaces the checker those read.
func ProbeReadiness(ctx context.Context, s *Server, probe readiness.Probe) error {
	s.readiness = readiness.New(probe, slog.Default())
	return s.readiness.Check(ctx)
}
