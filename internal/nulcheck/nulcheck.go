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
	"google.golang.org/protobuf/types/known/structpb"

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
	w := &walker{}
	w.visit = w.visitField
	if f := w.message(m.ProtoReflect()); f != nil {
		return f.violation(), true
	}
	return apierr.Violation{}, false
}

// found is a NUL found, with the way to it, innermost step first: the path
// is spelt out only for a request that has one.
type found struct {
	description string
	steps       []step
}

// step is a field, a list index or a map key.
type step struct {
	field protoreflect.FieldDescriptor
	index int
	key   string
	isKey bool
}

func (f *found) violation() apierr.Violation {
	path := ""
	for i := len(f.steps) - 1; i >= 0; i-- {
		switch s := f.steps[i]; {
		case s.isKey:
			path = protopath.Key(path, s.key)
		case s.field == nil:
			path = protopath.Index(path, s.index)
		default:
			path = protopath.Field(path, s.field)
		}
	}
	return apierr.Violation{Field: path, Description: f.description}
}

func (f *found) at(s step) *found {
	f.steps = append(f.steps, s)
	return f
}

// walker walks a message. Its visit, made once, is what every message's
// Range calls, so that a walk allocates nothing per message.
type walker struct {
	visit func(protoreflect.FieldDescriptor, protoreflect.Value) bool
	found *found
}

func (w *walker) message(m protoreflect.Message) *found {
	m.Range(w.visit)
	return w.found
}

func (w *walker) visitField(fd protoreflect.FieldDescriptor, val protoreflect.Value) bool {
	if f := w.field(fd, val); f != nil {
		w.found = f.at(step{field: fd})
		return false
	}
	return true
}

func (w *walker) field(fd protoreflect.FieldDescriptor, val protoreflect.Value) *found {
	switch {
	case fd.IsList():
		list := val.List()
		for i := range list.Len() {
			if f := w.single(fd, list.Get(i)); f != nil {
				return f.at(step{index: i})
			}
		}
		return nil
	case fd.IsMap():
		return w.mapEntries(fd, val.Map())
	}
	return w.single(fd, val)
}

func (w *walker) single(fd protoreflect.FieldDescriptor, val protoreflect.Value) *found {
	switch fd.Kind() {
	case protoreflect.StringKind:
		if strings.IndexByte(val.String(), 0) >= 0 {
			return &found{description: inString}
		}
	case protoreflect.MessageKind, protoreflect.GroupKind:
		m := val.Message()
		switch v := m.Interface().(type) {
		case *structpb.Struct:
			return w.structFields(v)
		case *structpb.Value:
			return w.value(v)
		case *structpb.ListValue:
			return w.list(v)
		}
		return w.message(m)
	}
	return nil
}

// mapEntries checks a map's keys and values. Maps range in random order;
// the entry with the smallest key among those with a NUL is named, so that
// the same request always gets the same answer.
func (w *walker) mapEntries(fd protoreflect.FieldDescriptor, m protoreflect.Map) *found {
	var first *found
	firstKey := ""
	m.Range(func(k protoreflect.MapKey, val protoreflect.Value) bool {
		key := k.String()
		if first != nil && key >= firstKey {
			return true
		}
		f := badKey(key)
		if f == nil {
			f = atKey(w.single(fd.MapValue(), val), key)
		}
		if f != nil {
			first, firstKey = f, key
		}
		return true
	})
	return first
}

func badKey(key string) *found {
	if strings.IndexByte(key, 0) >= 0 {
		return &found{description: inKey}
	}
	return nil
}

func atKey(f *found, key string) *found {
	if f == nil {
		return nil
	}
	return f.at(step{key: key, isKey: true})
}

// The JSON types (properties) are walked as Go values: through
// protoreflect, a map's entries cost allocations each.

func (w *walker) structFields(s *structpb.Struct) *found {
	var first *found
	firstKey := ""
	for key, v := range s.GetFields() {
		if first != nil && key >= firstKey {
			continue
		}
		f := badKey(key)
		if f == nil {
			f = atKey(w.value(v), key)
		}
		if f != nil {
			first, firstKey = f, key
		}
	}
	return first
}

func (w *walker) value(v *structpb.Value) *found {
	switch k := v.GetKind().(type) {
	case *structpb.Value_StringValue:
		if strings.IndexByte(k.StringValue, 0) >= 0 {
			return &found{description: inString}
		}
	case *structpb.Value_StructValue:
		return w.structFields(k.StructValue)
	case *structpb.Value_ListValue:
		return w.list(k.ListValue)
	}
	return nil
}

func (w *walker) list(l *structpb.ListValue) *found {
	for i, v := range l.GetValues() {
		if f := w.value(v); f != nil {
			return f.at(step{index: i})
		}
	}
	return nil
}
