package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"slices"
	"strconv"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/jsonscan"
)

// checkTypes checks a request body against the message's field types the
// way the API reads JSON: integers and prices are JSON numbers (never
// numeric strings), strings are strings, objects objects. It returns the
// first misfit, named by its JSON path (items[0].quantity: must be an
// integer). Unknown fields are ignored, and null means unset.
//
// A valid body is checked on its raw bytes, split by one scan per level
// (jsonscan): decoding it whole first, as encoding/json would, copied and
// unescaped every string of the body, the megabytes of a design included,
// for nothing but their type. Only an invalid body is decoded, for the
// decoder's account of what is wrong.
func checkTypes(data []byte, md protoreflect.MessageDescriptor) (apierr.Violation, bool) {
	if !jsonscan.Valid(data) {
		return malformed(data)
	}
	body := data[jsonscan.SkipSpace(data, 0):]
	if kindOf(body) != '{' {
		return apierr.Violation{Description: "the request body must be a JSON object"}, true
	}
	return checkObject(body, md, "")
}

// malformed explains why data, which is not valid JSON, is not.
func malformed(data []byte) (apierr.Violation, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var body any
	if err := dec.Decode(&body); err != nil {
		return apierr.Violation{Description: "malformed JSON: " + err.Error()}, true
	}
	return apierr.Violation{Description: "malformed JSON: unexpected data after the JSON object"}, true
}

// kindOf is a valid JSON value's kind by its first byte: '{', '[', '"',
// 't' or 'f' (a boolean), 'n' (null), or '0' for a number.
func kindOf(raw []byte) byte {
	if len(raw) == 0 {
		return 0
	}
	switch c := raw[0]; c {
	case '{', '[', '"', 'n':
		return c
	case 't', 'f':
		return 't'
	}
	return '0'
}

func checkObject(raw []byte, md protoreflect.MessageDescriptor, prefix string) (apierr.Violation, bool) {
	obj, _ := jsonscan.Object(raw)
	for _, key := range slices.Sorted(maps.Keys(obj)) {
		fd := md.Fields().ByJSONName(key)
		if fd == nil {
			fd = md.Fields().ByName(protoreflect.Name(key))
		}
		if fd == nil || kindOf(obj[key]) == 'n' {
			continue // unknown fields are ignored; null means unset
		}
		if v, found := checkField(obj[key], fd, joinPath(prefix, string(fd.Name()))); found {
			return v, true
		}
	}
	return apierr.Violation{}, false
}

func checkField(val []byte, fd protoreflect.FieldDescriptor, path string) (apierr.Violation, bool) {
	switch {
	case fd.IsList():
		if kindOf(val) != '[' {
			return violation(path, "must be an array")
		}
		list, _ := jsonscan.Array(val)
		for i, elem := range list {
			if v, found := checkSingle(elem, fd, fmt.Sprintf("%s[%d]", path, i)); found {
				return v, true
			}
		}
		return apierr.Violation{}, false
	case fd.IsMap():
		if kindOf(val) != '{' {
			return violation(path, "must be an object")
		}
		obj, _ := jsonscan.Object(val)
		for k, elem := range obj {
			if v, found := checkSingle(elem, fd.MapValue(), path+"."+k); found {
				return v, true
			}
		}
		return apierr.Violation{}, false
	}
	return checkSingle(val, fd, path)
}

func checkSingle(val []byte, fd protoreflect.FieldDescriptor, path string) (apierr.Violation, bool) {
	if kindOf(val) == 'n' {
		return violation(path, "must not be null")
	}
	switch fd.Kind() {
	case protoreflect.StringKind:
		return checkString(val, path)
	case protoreflect.BoolKind:
		return expect(val, isBool, path, "must be true or false")
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return checkInteger(val, path, math.MinInt32, math.MaxInt32)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return checkInteger(val, path, 0, math.MaxUint32)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return checkInteger(val, path, math.MinInt64, math.MaxInt64)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return checkInteger(val, path, 0, math.MaxInt64)
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return checkNumber(val, path)
	case protoreflect.EnumKind:
		return expect(val, func(v []byte) bool { return isString(v) || isNumber(v) }, path, "must be one of the allowed values")
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return checkMessage(val, fd.Message(), path)
	}
	return apierr.Violation{}, false
}

// wellKnown are the message types whose JSON form is not an object.
var wellKnown = map[protoreflect.FullName]func([]byte, string) (apierr.Violation, bool){
	"google.protobuf.StringValue": checkString,
	"google.protobuf.BytesValue":  func(v []byte, p string) (apierr.Violation, bool) { return expect(v, isString, p, "must be a string") },
	"google.protobuf.BoolValue": func(v []byte, p string) (apierr.Violation, bool) {
		return expect(v, isBool, p, "must be true or false")
	},
	"google.protobuf.DoubleValue": checkNumber,
	"google.protobuf.FloatValue":  checkNumber,
	"google.protobuf.Int32Value": func(v []byte, p string) (apierr.Violation, bool) {
		return checkInteger(v, p, math.MinInt32, math.MaxInt32)
	},
	"google.protobuf.UInt32Value": func(v []byte, p string) (apierr.Violation, bool) { return checkInteger(v, p, 0, math.MaxUint32) },
	"google.protobuf.Int64Value": func(v []byte, p string) (apierr.Violation, bool) {
		return checkInteger(v, p, math.MinInt64, math.MaxInt64)
	},
	"google.protobuf.Timestamp": func(v []byte, p string) (apierr.Violation, bool) {
		return expect(v, isString, p, "must be an RFC 3339 timestamp")
	},
	"google.protobuf.Duration": func(v []byte, p string) (apierr.Violation, bool) {
		return expect(v, isString, p, "must be a duration such as \"1.5s\"")
	},
	"google.protobuf.FieldMask": func(v []byte, p string) (apierr.Violation, bool) {
		return expect(v, isString, p, "must be a comma-separated list of fields")
	},
	"google.protobuf.Struct":    func(v []byte, p string) (apierr.Violation, bool) { return expect(v, isObject, p, "must be an object") },
	"google.protobuf.ListValue": func(v []byte, p string) (apierr.Violation, bool) { return expect(v, isArray, p, "must be an array") },
	"google.protobuf.Value":     func([]byte, string) (apierr.Violation, bool) { return apierr.Violation{}, false },
}

func checkMessage(val []byte, md protoreflect.MessageDescriptor, path string) (apierr.Violation, bool) {
	if check, ok := wellKnown[md.FullName()]; ok {
		return check(val, path)
	}
	if kindOf(val) != '{' {
		return violation(path, "must be an object")
	}
	return checkObject(val, md, path)
}

// checkInteger accepts a JSON number whose exact decimal value is an
// integer within [lo, hi]. The value is read as an exact rational: a float
// would take 2.0000000000000001 for 2 and 1e-400 for 0.
func checkInteger(val []byte, path string, lo, hi int64) (apierr.Violation, bool) {
	if !isNumber(val) {
		return violation(path, "must be an integer")
	}
	r, ok := new(big.Rat).SetString(string(val))
	if !ok || !r.IsInt() {
		return violation(path, "must be an integer")
	}
	if r.Num().Cmp(big.NewInt(lo)) < 0 || r.Num().Cmp(big.NewInt(hi)) > 0 {
		return violation(path, fmt.Sprintf("is out of range: must be between %d and %d", lo, hi))
	}
	return apierr.Violation{}, false
}

// checkString accepts a JSON string. (NUL characters, which PostgreSQL
// cannot store, are refused for REST and gRPC alike by package nulcheck.)
func checkString(val []byte, path string) (apierr.Violation, bool) {
	return expect(val, isString, path, "must be a string")
}

// checkNumber accepts a JSON number a float64 can hold.
func checkNumber(val []byte, path string) (apierr.Violation, bool) {
	if !isNumber(val) {
		return violation(path, "must be a number")
	}
	if f, err := strconv.ParseFloat(string(val), 64); err != nil || math.IsInf(f, 0) {
		return violation(path, "is out of range for a number")
	}
	return apierr.Violation{}, false
}

func expect(val []byte, ok func([]byte) bool, path, description string) (apierr.Violation, bool) {
	if ok(val) {
		return apierr.Violation{}, false
	}
	return violation(path, description)
}

func violation(path, description string) (apierr.Violation, bool) {
	return apierr.Violation{Field: path, Description: description}, true
}

func isString(v []byte) bool { return kindOf(v) == '"' }
func isBool(v []byte) bool   { return kindOf(v) == 't' }
func isNumber(v []byte) bool { return kindOf(v) == '0' }
func isObject(v []byte) bool { return kindOf(v) == '{' }
func isArray(v []byte) bool  { return kindOf(v) == '[' }

func joinPath(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}
