package gateway

import (
	"bytes"
	"net/url"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
)

// TestUnmarshalSplicedIsProtojson: the codec decodes a body with long
// strings into the message protojson makes of it, whether the strings are
// spliced in (plain, in string fields and wrappers, at any depth) or the
// body is decoded whole again (a string that needs unescaping, in a bytes
// field, a map, an unknown field, or as a key).
func TestUnmarshalSplicedIsProtojson(t *testing.T) {
	design := url.QueryEscape(`{"layers":[{"type":"image","src":"data:image/png;base64,` + strings.Repeat("iVBORw0KGgo+/=", 10_000) + `"}]}`)
	long := strings.Repeat("A", spliceMin)
	for _, tc := range []struct {
		name    string
		body    string
		msg     func() proto.Message
		spliced bool
	}{
		{"order items and a wrapper", `{"store_id":"s","ecommerce_order_id":"1","ecommerce_order_number":"` + long + `",` +
			`"items":[{"ecommerce_order_item_id":"1","template_config":"` + design + `","thumbnails":["` + long + `","t"]},` +
			`{"ecommerce_order_item_id":"2","template_config":"` + design[:spliceMin] + `"}]}`,
			func() proto.Message { return &platenv1.CreateOrderRequest{} }, true},
		{"short strings only", `{"store_id":"s","items":[{"template_config":"%7B%7D"}]}`,
			func() proto.Message { return &platenv1.CreateOrderRequest{} }, false},
		{"escapes", `{"store_id":"` + long + `\n\u00e9","items":[{"template_config":"` + long + `\"é"}]}`,
			func() proto.Message { return &platenv1.CreateOrderRequest{} }, false},
		{"UTF-8", `{"store_id":"` + long + `é€😀","items":[]}`,
			func() proto.Message { return &platenv1.CreateOrderRequest{} }, true},
		{"unknown field", `{"store_id":"s","extra":"` + long + `"}`,
			func() proto.Message { return &platenv1.CreateOrderRequest{} }, false},
		{"long key", `{"store_id":"s","` + long + `":"x"}`,
			func() proto.Message { return &platenv1.CreateOrderRequest{} }, false},
		{"bytes", `{"name":"F","data":"` + strings.Repeat("QUJD", spliceMin/4) + `"}`,
			func() proto.Message { return &platenv1.CreateFontRequest{} }, false},
		{"map", `{"a":"` + long + `","b":["` + long + `"]}`,
			func() proto.Message { return &structpb.Struct{} }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.msg()
			if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal([]byte(tc.body), want); err != nil {
				t.Fatal(err)
			}
			got := tc.msg()
			if err := newCodec().NewDecoder(bytes.NewReader([]byte(tc.body))).Decode(got); err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(got, want) {
				t.Error("the codec's message differs from protojson's")
			}
			_, spliced := unmarshalSpliced([]byte(tc.body), tc.msg(), protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal)
			if spliced != tc.spliced {
				t.Errorf("spliced %v, want %v", spliced, tc.spliced)
			}
		})
	}
}

// Invalid UTF-8 in a long string is refused, as protojson refuses it.
func TestUnmarshalSplicedInvalidUTF8(t *testing.T) {
	body := []byte(`{"store_id":"` + strings.Repeat("A", spliceMin) + "\xff" + `"}`)
	if err := newCodec().NewDecoder(bytes.NewReader(body)).Decode(&platenv1.CreateOrderRequest{}); err == nil {
		t.Error("invalid UTF-8 decoded")
	}
}

// A body the spliced decode refuses is refused with protojson's own
// account of it, naming the real value rather than a placeholder.
func TestUnmarshalSplicedError(t *testing.T) {
	long := strings.Repeat("A", spliceMin)
	body := []byte(`{"created_at":"` + long + `"}`) // not a timestamp
	err := newCodec().NewDecoder(bytes.NewReader(body)).Decode(&platenv1.BatchOrder{})
	if err == nil {
		t.Fatal("a long string decoded as a timestamp")
	}
	if !strings.Contains(err.Error(), "AAAA") {
		t.Errorf("the error does not name the value: %.200s", err)
	}
	if strings.Contains(err.Error(), placeholderPrefix) {
		t.Errorf("the error names a placeholder: %.200s", err)
	}
}

// BenchmarkUnmarshalOrder decodes an order request with a 1.1 MB design:
// protojson alone, and the codec (its type check included).
func BenchmarkUnmarshalOrder(b *testing.B) {
	design := bigOrder(1_000_000).Items[0].TemplateConfig
	body := []byte(`{"store_id":"shop-1","ecommerce_order_id":"1","items":[{"ecommerce_order_item_id":"1","template_config":"` + design + `"}]}`)
	c := newCodec()
	b.Run("protojson", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if err := c.UnmarshalOptions.Unmarshal(body, &platenv1.CreateOrderRequest{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("codec", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if err := c.NewDecoder(bytes.NewReader(body)).Decode(&platenv1.CreateOrderRequest{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
