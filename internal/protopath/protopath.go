// Package protopath names a field of a request message by its path in the
// request's JSON (items[0].properties.colour[1]), the way field violations
// name fields, for checks that walk messages rather than JSON: the
// well-known types that read as plain JSON (Struct, Value, ListValue and
// the wrappers) add no name of their own.
package protopath

import (
	"strconv"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// transparent are the well-known messages whose fields read, in JSON, as
// the message itself: a Struct is an object of its fields map, a Value its
// kind, a ListValue an array of its values, a wrapper its value.
var transparent = map[protoreflect.FullName]bool{
	"google.protobuf.Struct":      true,
	"google.protobuf.Value":       true,
	"google.protobuf.ListValue":   true,
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

// Field is the path of field fd of the message at path.
func Field(path string, fd protoreflect.FieldDescriptor) string {
	if transparent[fd.ContainingMessage().FullName()] {
		return path
	}
	if path == "" {
		return string(fd.Name())
	}
	return path + "." + string(fd.Name())
}

// Index is the path of element i of the list at path.
func Index(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// Key is the path of the entry with this key of the map at path.
func Key(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
