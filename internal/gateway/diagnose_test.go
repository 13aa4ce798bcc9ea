package gateway

import (
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/apipb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/typepb"
)

// TestCheckTypesEveryKind reads bodies against messages outside Platen's
// protos, which between them hold every kind checkTypes knows: today's
// requests use only some of them, and a field of another kind added to a
// request must be read as strictly.
func TestCheckTypesEveryKind(t *testing.T) {
	field := (&descriptorpb.FieldDescriptorProto{}).ProtoReflect().Descriptor() // int32, enums, bool, string, message
	option := (&descriptorpb.UninterpretedOption{}).ProtoReflect().Descriptor() // uint64, int64, double, bytes, repeated message
	file := (&descriptorpb.FileDescriptorProto{}).ProtoReflect().Descriptor()   // repeated string, repeated int32
	value := (&structpb.Value{}).ProtoReflect().Descriptor()                    // Struct, ListValue, NullValue enum
	api := (&apipb.Api{}).ProtoReflect().Descriptor()                           // repeated typepb.Option (Any inside)
	typ := (&typepb.Type{}).ProtoReflect().Descriptor()                         // enum syntax
	tests := []struct {
		name      string
		md        protoreflect.MessageDescriptor
		body      string
		wantField string // "" when the body is fine
		wantDesc  string
	}{
		{"int32, enum by name and number, bool", field, `{"number": 3, "label": "LABEL_OPTIONAL", "type": 9, "proto3_optional": false}`, "", ""},
		{"enum as a bool", field, `{"label": true}`, "label", "must be one of the allowed values"},
		{"bool as a string", field, `{"proto3_optional": "true"}`, "proto3_optional", "must be true or false"},
		{"int32 past its range", field, `{"number": 2147483648}`, "number", "is out of range: must be between -2147483648 and 2147483647"},
		{"nested message as a string", field, `{"options": "packed"}`, "options", "must be an object"},
		{"nested message's field", field, `{"options": {"packed": 1}}`, "options.packed", "must be true or false"},
		{"uint64 past int64, which is what Platen stores", option, `{"positive_int_value": 18446744073709551615, "negative_int_value": -9223372036854775808, "double_value": 1.5e300, "string_value": "AAE="}`, "positive_int_value", "is out of range: must be between 0 and 9223372036854775807"},
		{"uint64, int64, double, bytes", option, `{"positive_int_value": 9223372036854775807, "negative_int_value": -9223372036854775808, "double_value": 1.5e300, "string_value": "AAE="}`, "", ""},
		{"uint64 negative", option, `{"positive_int_value": -1}`, "positive_int_value", "is out of range: must be between 0 and 9223372036854775807"},
		{"int64 fraction", option, `{"negative_int_value": 1.5}`, "negative_int_value", "must be an integer"},
		{"double as a string", option, `{"double_value": "1.5"}`, "double_value", "must be a number"},
		{"double past float64", option, `{"double_value": 1e400}`, "double_value", "is out of range for a number"},
		{"repeated message element", option, `{"name": [{"name_part": "a", "is_extension": false}, {"name_part": 7}]}`, "name[1].name_part", "must be a string"},
		{"repeated field as an object", option, `{"name": {"name_part": "a"}}`, "name", "must be an array"},
		{"repeated string and int32", file, `{"dependency": ["a.proto"], "public_dependency": [0, 1]}`, "", ""},
		{"repeated element null", file, `{"dependency": ["a.proto", null]}`, "dependency[1]", "must not be null"},
		{"repeated int32 element a string", file, `{"public_dependency": [0, "1"]}`, "public_dependency[1]", "must be an integer"},
		{"Struct, ListValue and null in a Value", value, `{"struct_value": {"a": [1, "x"]}, "list_value": [true, null], "null_value": null}`, "", ""},
		{"Struct as an array", value, `{"struct_value": [1]}`, "struct_value", "must be an object"},
		{"ListValue as an object", value, `{"list_value": {"a": 1}}`, "list_value", "must be an array"},
		{"repeated message inside a list", api, `{"options": [{"name": "a"}, "b"]}`, "options[1]", "must be an object"},
		{"enum as an object", typ, `{"syntax": {}}`, "syntax", "must be one of the allowed values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, bad := checkTypes([]byte(tt.body), tt.md)
			switch {
			case tt.wantField == "" && bad:
				t.Errorf("checkTypes(%s) = %q, want no violation", tt.body, v.String())
			case tt.wantField != "" && !bad:
				t.Errorf("checkTypes(%s) found nothing, want %s: %s", tt.body, tt.wantField, tt.wantDesc)
			case bad && (v.Field != tt.wantField || v.Description != tt.wantDesc):
				t.Errorf("checkTypes(%s) = {%q, %q}, want {%q, %q}", tt.body, v.Field, v.Description, tt.wantField, tt.wantDesc)
			}
		})
	}
}

// TestWellKnownJSONForms: the message types whose JSON form is a string, a
// number or a bool are read in that form, not as objects.
func TestWellKnownJSONForms(t *testing.T) {
	tests := []struct {
		name, fullName string
		good, bad      string // JSON
		wantDesc       string
	}{
		{"StringValue", "google.protobuf.StringValue", `"x"`, `1.0`, "must be a string"},
		{"BytesValue", "google.protobuf.BytesValue", `"AAE="`, `true`, "must be a string"},
		{"BoolValue", "google.protobuf.BoolValue", `true`, `"true"`, "must be true or false"},
		{"DoubleValue", "google.protobuf.DoubleValue", `1.5`, `"1.5"`, "must be a number"},
		{"FloatValue", "google.protobuf.FloatValue", `1.5`, `"1.5"`, "must be a number"},
		{"Int32Value", "google.protobuf.Int32Value", `-3`, `2147483648`, "is out of range: must be between -2147483648 and 2147483647"},
		{"UInt32Value", "google.protobuf.UInt32Value", `3`, `-3`, "is out of range: must be between 0 and 4294967295"},
		{"Int64Value", "google.protobuf.Int64Value", `-3`, `"3"`, "must be an integer"},
		{"Timestamp", "google.protobuf.Timestamp", `"2026-11-24T10:00:00Z"`, `1`, "must be an RFC 3339 timestamp"},
		{"Duration", "google.protobuf.Duration", `"1.5s"`, `1.5`, `must be a duration such as "1.5s"`},
		{"FieldMask", "google.protobuf.FieldMask", `"note,items"`, `["note"]`, "must be a comma-separated list of fields"},
		{"Value takes anything", "google.protobuf.Value", `{"a":null}`, `null`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check, ok := wellKnown[protoreflect.FullName(tt.fullName)]
			if !ok {
				t.Fatalf("%s is not a well-known form", tt.fullName)
			}
			if v, bad := check([]byte(tt.good), "f"); bad {
				t.Errorf("%v: %q, want no violation", tt.good, v.String())
			}
			v, bad := check([]byte(tt.bad), "f")
			if tt.wantDesc == "" {
				if bad {
					t.Errorf("%v: %q, want no violation", tt.bad, v.String())
				}
				return
			}
			if !bad || v.Field != "f" || v.Description != tt.wantDesc {
				t.Errorf("%v: {%q, %q} (found %v), want {f, %q}", tt.bad, v.Field, v.Description, bad, tt.wantDesc)
			}
		})
	}
}
