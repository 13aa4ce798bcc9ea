// Package nulcheck refuses a request that carries a NUL character in any
// string, map key included: PostgreSQL cannot store one in text or JSON
// (SQLSTATE 22P05) while SQLite can, so the same request would otherwise be
// a 500 on one database and stored on the other. It is one interceptor for
// gRPC and REST alike (the gateway's calls run the same chain), and it
// names the string by its JSON path (items[0].properties.colour[1]).
// Bytes fields may hold NUL; the API has none.
package nulcheck

import (
	"context"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/protopath"
)

const (
	inString = "must not contain NUL characters"
	inKey    = "must not have a key that contains NUL characters"
)

// UnaryServerInterceptor answers InvalidArgument, naming the path, for a
// request with a NUL in a string.
func UnaryServerInterceptor(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if m, ok := req.(proto.Message); ok {
		if v, found := Find(m); found {
			return nil, apierr.ToStatus(ctx, &apierr.ValidationError{Violations: []apierr.Violation{v}}).Err()
		}
	}
	return handler(ctx, req)
}

// Find returns the first string of m that holds a NUL, as a violation.
func Find(m proto.Message) (apierr.Violation, bool) {
	return message(m.ProtoReflect(), "")
}

func message(m protoreflect.Message, path string) (v apierr.Violation, found bool) {
	m.Range(func(fd protoreflect.FieldDescriptor, val protoreflect.Value) bool {
		v, found = field(fd, val, protopath.Field(path, fd))
		return !found
	})
	return v, found
}

func field(fd protoreflect.FieldDescriptor, val protoreflect.Value, path string) (apierr.Violation, bool) {
	switch {
	case fd.IsList():
		list := val.List()
		for i := range list.Len() {
			if v, found := single(fd, list.Get(i), protopath.Index(path, i)); found {
				return v, true
			}
		}
		return apierr.Violation{}, false
	case fd.IsMap():
		return mapEntries(fd, val.Map(), path)
	}
	return single(fd, val, path)
}

// mapEntries checks a map's keys and values. Maps range in random order;
// the entry with the smallest key among those with a NUL is named, so that
// the same request always gets the same answer.
func mapEntries(fd protoreflect.FieldDescriptor, m protoreflect.Map, path string) (apierr.Violation, bool) {
	var first apierr.Violation
	firstKey, found := "", false
	m.Range(func(k protoreflect.MapKey, val protoreflect.Value) bool {
		key := k.String()
		if found && key >= firstKey {
			return true
		}
		if strings.IndexByte(key, 0) >= 0 {
			first, firstKey, found = apierr.Violation{Field: path, Description: inKey}, key, true
		} else if v, bad := single(fd.MapValue(), val, protopath.Key(path, key)); bad {
			first, firstKey, found = v, key, true
		}
		return true
	})
	return first, found
}

func single(fd protoreflect.FieldDescriptor, val protoreflect.Value, path string) (apierr.Violation, bool) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		if strings.IndexByte(val.String(), 0) >= 0 {
			return apierr.Violation{Field: path, Description: inString}, true
		}
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return message(val.Message(), path)
	}
	return apierr.Violation{}, false
}
