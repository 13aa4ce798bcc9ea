package inputlimit

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
)

// violationOf is the one field violation err carries.
func violationOf(t *testing.T, err error) apierr.Violation {
	t.Helper()
	var verr *apierr.ValidationError
	if !errors.As(err, &verr) || len(verr.Violations) != 1 {
		t.Fatalf("error %v, want a validation error with one violation", err)
	}
	return verr.Violations[0]
}

// scan feeds doc to a Scanner in chunks of n bytes.
func scan(doc string, n int) error {
	var s Scanner
	for len(doc) > 0 {
		k := min(n, len(doc))
		if _, err := s.Write([]byte(doc[:k])); err != nil {
			return err
		}
		doc = doc[k:]
	}
	return s.Err()
}

func repeat(elem string, n int) string {
	return strings.TrimSuffix(strings.Repeat(elem+",", n), ",")
}

func nest(n int) string { return strings.Repeat(`{"a":`, n-1) + "{}" + strings.Repeat("}", n-1) }

func TestScannerAccepts(t *testing.T) {
	docs := map[string]string{
		"an order":                     `{"store_id":"s","items":[{"quantity":1,"thumbnails":["a","b"],"properties":{"x":[1,2,{"y":null}]}}]}`,
		"brackets and commas in text":  `{"note":"[[[[,,,,{{{{","k\"[":"\\\"]"}`,
		"10,000 elements":              `{"items":[` + repeat("{}", MaxElements) + `]}`,
		"10,000 members":               `{"properties":{` + repeat(`"k":1`, MaxElements) + `}}`,
		"32 levels":                    nest(MaxDepth),
		"empty containers":             `{"a":[],"b":{},"c":[[],[]]}`,
		"not JSON (the decoder's job)": `}}]],,::`,
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			for _, n := range []int{1, 3, len(doc)} {
				if err := scan(doc, n); err != nil {
					t.Fatalf("chunks of %d: %v", n, err)
				}
			}
		})
	}
}

func TestScannerRefuses(t *testing.T) {
	manyItems := `{"items":[` + repeat("{}", MaxElements+1) + `]}`
	tests := []struct {
		name, doc, field, description string
	}{
		{"10,001 items", manyItems, "items", "holds more than 10,000 elements"},
		{"a long list inside an item", `{"items":[{},{"thumbnails":[` + repeat(`"t"`, MaxElements+1) + `]}]}`,
			"items[1].thumbnails", "holds more than 10,000 elements"},
		{"10,001 members", `{"items":[{"properties":{` + repeat(`"k":1`, MaxElements+1) + `}}]}`,
			"items[0].properties", "holds more than 10,000 elements"},
		{"10,001 members at the top", `{` + repeat(`"k":1`, MaxElements+1) + `}`,
			"", "the request holds more than 10,000 elements"},
		{"33 levels", nest(MaxDepth + 1), strings.TrimSuffix(strings.Repeat("a.", MaxDepth), "."), "nests more than 32 levels deep"},
		{"arrays nest too", `{"p":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `}`,
			"p" + strings.Repeat("[0]", MaxDepth-1), "nests more than 32 levels deep"},
		{"values in all", `{"p":[` + repeat("["+repeat("0", 5000)+"]", MaxValues/5000+1) + `]}`,
			"", "the request holds more than 250,000 values in all"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, n := range []int{7, len(tt.doc)} {
				v := violationOf(t, scan(tt.doc, n))
				if v.Field != tt.field || v.Description != tt.description {
					t.Errorf("chunks of %d: violation %q: %q, want %q: %q", n, v.Field, v.Description, tt.field, tt.description)
				}
			}
		})
	}
}

// TestScannerStopsEarly: the limit is found at the byte that passes it,
// so the rest of a body need not be read.
func TestScannerStopsEarly(t *testing.T) {
	var s Scanner
	head := `{"items":[` + repeat("{}", MaxElements) + `,{}`
	if _, err := s.Write([]byte(head)); err == nil {
		t.Fatal("no error at the 10,001st element")
	}
	if _, err := s.Write([]byte(`]}`)); err == nil {
		t.Error("the error is not kept")
	}
}

func TestCheckWireAccepts(t *testing.T) {
	props, err := structpb.NewStruct(map[string]any{"a": []any{"x", 1.0, map[string]any{"b": true}}})
	if err != nil {
		t.Fatal(err)
	}
	items := make([]*platenv1.OrderItem, MaxElements)
	for i := range items {
		items[i] = &platenv1.OrderItem{Thumbnails: []string{"t"}}
	}
	items[0].Properties = props
	msg := &platenv1.CreateOrderRequest{StoreId: "s", Note: wrapperspb.String("ü"), Items: items}
	b, err := proto.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckWire(b, msg.ProtoReflect().Descriptor()); err != nil {
		t.Fatal(err)
	}
}

func TestCheckWireRefuses(t *testing.T) {
	md := (&platenv1.CreateOrderRequest{}).ProtoReflect().Descriptor()
	item := func(fields ...[]byte) []byte { return field(2, concat(fields...)) }
	deep := &structpb.Value{}
	for range MaxDepth {
		deep = structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"a": deep}})
	}
	deepItem, _ := proto.Marshal(&platenv1.OrderItem{Properties: deep.GetStructValue()})
	tests := []struct {
		name, field, description string
		b                        []byte
	}{
		{"garbage", "", "the request message is not well-formed protobuf", []byte{0xff, 0xff, 0xff}},
		{"a length past the end", "", "the request message is not well-formed protobuf", []byte{0x0a, 0x05, 'a'}},
		{"a string that is not UTF-8", "store_id", "must be UTF-8 text", field(1, []byte{0xff, 0xfe})},
		{"in a wrapper", "note", "must be UTF-8 text", field(9, field(1, []byte("a\xffb")))},
		{"in an item", "items[1].thumbnails[0]", "must be UTF-8 text",
			concat(item(), item(field(8, []byte{0xc3})))},
		{"in a Struct", "items[0].properties.k[1]", "must be UTF-8 text",
			item(field(6, entry("k", listValue(stringValue("ok"), stringValue("\xff")))))},
		{"a Struct key", "items[0].properties", "has a key that is not UTF-8 text",
			item(field(6, entry("k\xff", stringValue("v"))))},
		{"10,001 items", "items", "holds more than 10,000 elements", concat(repeatBytes(item(), MaxElements+1)...)},
		{"deep", "items[0].properties" + strings.Repeat(".a", MaxDepth-2), "nests more than 32 levels deep", field(2, deepItem)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := violationOf(t, CheckWire(tt.b, md))
			if v.Field != tt.field || v.Description != tt.description {
				t.Errorf("violation %q: %q, want %q: %q", v.Field, v.Description, tt.field, tt.description)
			}
		})
	}
}

func TestCheckWireCountsPackedElements(t *testing.T) {
	md := (&platenv1.CreatePrintTemplateRequest{}).ProtoReflect().Descriptor()
	fd := md.Fields().ByName("variant_ids")
	if fd == nil {
		t.Skip("no packed field to test with")
	}
	packed := make([]byte, MaxElements+1) // varint 0, 10,001 times
	v := violationOf(t, CheckWire(field(fd.Number(), packed), md))
	if v.Field != "variant_ids" || v.Description != "holds more than 10,000 elements" {
		t.Errorf("violation %q: %q", v.Field, v.Description)
	}
}

func field(num protowire.Number, content []byte) []byte {
	b := protowire.AppendTag(nil, num, protowire.BytesType)
	return protowire.AppendBytes(b, content)
}

func concat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func repeatBytes(b []byte, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = b
	}
	return out
}

// entry is a Struct's fields entry (field 1 of Struct).
func entry(key string, value []byte) []byte {
	return field(1, concat(field(1, []byte(key)), field(2, value)))
}

// stringValue is a Value holding a string (field 3 of Value).
func stringValue(s string) []byte { return field(3, []byte(s)) }

// listValue is a Value holding a list (field 6 of Value; values are field 1 of ListValue).
func listValue(values ...[]byte) []byte {
	var list []byte
	for _, v := range values {
		list = append(list, field(1, v)...)
	}
	return field(6, list)
}

// BenchmarkScanner scans an 8 MiB order-like body: mostly long strings
// (design documents), as real bodies near the limit are.
func BenchmarkScanner(b *testing.B) {
	item := `{"ecommerce_order_item_id":"1","quantity":1,"template_config":"` + strings.Repeat("%7B%22a%22%3A1%7D", 490) + `","thumbnails":["https://cdn.example.com/t.png"]}`
	doc := []byte(`{"items":[` + repeat(item, 1000) + `]}`)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		var s Scanner
		if _, err := s.Write(doc); err != nil {
			b.Fatal(err)
		}
	}
}
