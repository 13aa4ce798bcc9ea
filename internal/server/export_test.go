package server

import (
	"reflect"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/reflect/protoreflect"
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
