package inputlimit

import (
	"slices"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/platen-print/platen/internal/protopath"
)

// valueLike are the well-known messages that are one JSON value, not a
// level of their own: a Value is its kind, a wrapper its value. They add
// no depth and no count, so that a message and its JSON meet the same
// limits (a Struct member is a map entry holding a Value holding the
// member's value: one value in JSON).
var valueLike = map[protoreflect.FullName]bool{
	"google.protobuf.Value":       true,
	"google.protobuf.StringValue": true,
	"google.protobuf.BytesValue":  true,
	"google.protobuf.BoolValue":   true,
	"google.protobuf.DoubleValue": true,
	"google.protobuf.FloatValue":  true,
	"google.protobuf.Int32Value":  true,
	"google.protobuf.UInt32Value": true,
	"google.protobuf.Int64Value":  true,
	"google.protobuf.UInt64Value": true,
}

// CheckWire checks the protobuf encoding of a message of type md before it
// is unmarshalled: the limits, that it is well formed, and that its
// strings are UTF-8 (which protobuf requires, but whose decoder does not
// say where). It returns an *apierr.ValidationError naming the path.
func CheckWire(b []byte, md protoreflect.MessageDescriptor) error {
	w := &wireScan{}
	if werr := w.message(b, md, 0); werr != nil {
		return werr.validation()
	}
	return nil
}

type wireScan struct {
	values int
	docs   documentScan
}

// embeddedDocuments are the string fields that hold a JSON document
// (URL-encoded or not), which the API decodes: they meet the limits too.
var embeddedDocuments = map[protoreflect.Name]bool{
	"template_config": true,
}

// record is one field record of a message: for a length-delimited one,
// val is its content, without the length.
type record struct {
	num protowire.Number
	typ protowire.Type
	val []byte
}

// next reads the first record of b and returns the rest; ok is false when
// b is not well formed.
func next(b []byte) (r record, rest []byte, ok bool) {
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 {
		return r, nil, false
	}
	b = b[n:]
	if typ == protowire.BytesType {
		v, m := protowire.ConsumeBytes(b)
		return record{num, typ, v}, b[max(m, 0):], m >= 0
	}
	m := protowire.ConsumeFieldValue(num, typ, b)
	if m < 0 {
		return r, nil, false
	}
	return record{num, typ, b[:m]}, b[m:], true
}

// message scans the fields of one message inside depth levels.
func (w *wireScan) message(b []byte, md protoreflect.MessageDescriptor, depth int) *wireError {
	counted := !valueLike[md.FullName()]
	if counted {
		if depth++; depth > MaxDepth {
			return &wireError{description: tooDeep}
		}
	}
	fields := md.Fields()
	var small [64]int
	counts := small[:]
	if fields.Len() > len(small) {
		counts = make([]int, fields.Len())
	}
	for len(b) > 0 {
		r, rest, ok := next(b)
		if !ok {
			return &wireError{description: malformed}
		}
		b = rest
		fd := fields.ByNumber(r.num)
		if fd == nil {
			continue // unknown fields are kept as bytes, never expanded
		}
		k := occurrences(fd, r)
		if k < 0 {
			return &wireError{description: malformed, path: []step{{field: fd}}}
		}
		index := counts[fd.Index()]
		counts[fd.Index()] += k
		if counted {
			if w.values += k; w.values > MaxValues {
				return &wireError{description: tooManyInAll}
			}
		}
		if (fd.IsList() || fd.IsMap()) && counts[fd.Index()] > MaxElements {
			return &wireError{description: tooMany, path: []step{{field: fd}}}
		}
		if werr := w.field(r, fd, depth); werr != nil {
			if fd.IsList() {
				werr.path = append(werr.path, step{index: index, isIndex: true})
			}
			werr.path = append(werr.path, step{field: fd})
			return werr
		}
	}
	return nil
}

// occurrences is how many values one record holds: the elements of a
// packed list, else one; -1 when a packed list is cut short.
func occurrences(fd protoreflect.FieldDescriptor, r record) int {
	if !fd.IsList() || r.typ != protowire.BytesType {
		return 1
	}
	switch fd.Kind() {
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind, protoreflect.GroupKind:
		return 1
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return len(r.val) / 4
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return len(r.val) / 8
	}
	k := 0
	for val := r.val; len(val) > 0; k++ {
		_, n := protowire.ConsumeVarint(val)
		if n < 0 {
			return -1
		}
		val = val[n:]
	}
	return k
}

// field checks one length-delimited record: a string's UTF-8, a message's
// fields, a map entry's key and value.
func (w *wireScan) field(r record, fd protoreflect.FieldDescriptor, depth int) *wireError {
	if r.typ != protowire.BytesType {
		return nil // a scalar; a wrong wire type is kept as an unknown field
	}
	if fd.IsMap() {
		return w.mapEntry(r.val, fd, depth)
	}
	return w.single(r.val, fd, depth)
}

// single checks one value of fd's kind.
func (w *wireScan) single(val []byte, fd protoreflect.FieldDescriptor, depth int) *wireError {
	switch fd.Kind() {
	case protoreflect.StringKind:
		if !utf8.Valid(val) {
			return &wireError{description: notUTF8}
		}
		if embeddedDocuments[fd.Name()] {
			return documentError(w.docs.check(val))
		}
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return w.message(val, fd.Message(), depth)
	}
	return nil
}

// mapEntry checks a map entry: its key, which names the entry in a path,
// and its value.
func (w *wireScan) mapEntry(b []byte, fd protoreflect.FieldDescriptor, depth int) *wireError {
	var key, value record
	for len(b) > 0 {
		r, rest, ok := next(b)
		if !ok {
			return &wireError{description: malformed}
		}
		b = rest
		switch r.num {
		case 1:
			key = r
		case 2:
			value = r
		}
	}
	if fd.MapKey().Kind() == protoreflect.StringKind && !utf8.Valid(key.val) {
		return &wireError{description: "has a key that is not UTF-8 text"}
	}
	if value.typ != protowire.BytesType {
		return nil
	}
	if werr := w.single(value.val, fd.MapValue(), depth); werr != nil {
		werr.path = append(werr.path, step{key: string(key.val), isKey: true})
		return werr
	}
	return nil
}

// step is one step of a path, innermost first while an error unwinds.
type step struct {
	field   protoreflect.FieldDescriptor
	index   int
	isIndex bool
	key     string
	isKey   bool
}

// wireError is a limit or a flaw found at path.
type wireError struct {
	description string
	path        []step
	// inner is the JSON path inside an embedded document, after path.
	inner string
}

// documentError is the wireError of an embedded document's limit, at
// the path inside it that the scanner named; nil for nil.
func documentError(err error) *wireError {
	if err == nil {
		return nil
	}
	v, ok := asViolation(err)
	if !ok {
		return &wireError{description: err.Error()}
	}
	return &wireError{description: v.Description, inner: v.Field}
}

func (e *wireError) validation() error {
	path := ""
	for _, s := range slices.Backward(e.path) {
		switch {
		case s.isIndex:
			path = protopath.Index(path, s.index)
		case s.isKey:
			path = protopath.Key(path, s.key)
		default:
			path = protopath.Field(path, s.field)
		}
	}
	if e.inner != "" {
		path += "." + e.inner
	}
	switch {
	case e.description == tooManyInAll:
		return violation("", tooManyInAll)
	case e.description == tooMany:
		return tooManyAt(path)
	case path == "":
		return violation("", "the request message "+e.description)
	}
	return violation(path, e.description)
}
