package gateway

import (
	"encoding/json"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
)

// bigOrder is an order answer whose items carry designs of n bytes,
// URL-encoded as shops send them, and one that needs escaping.
func bigOrder(n int) *platenv1.Order {
	doc := url.QueryEscape(`{"layers":[{"type":"image","src":"data:image/png;base64,` + strings.Repeat("iVBORw0KGgo+/=", n/14) + `"}]}`)
	return &platenv1.Order{
		Uid: "9f1c", StoreId: "shop-1",
		Items: []*platenv1.OrderItem{
			{Uid: "a", EcommerceOrderItemId: "1", TemplateConfig: doc, Thumbnails: []string{"https://example.com/t.png", doc}},
			{Uid: "b", EcommerceOrderItemId: "2", TemplateConfig: doc[:len(doc)/2]},
			{Uid: "c", EcommerceOrderItemId: "3", TemplateConfig: strings.Repeat(`quote " backslash \ tab	é `, spliceMin/20)},
		},
	}
}

// TestMarshalSplicedIsJSONPb: the codec's answer is the same JSON as
// protojson's, and the message it was given is unchanged.
func TestMarshalSplicedIsJSONPb(t *testing.T) {
	c := newCodec()
	msg := bigOrder(100_000)
	before := proto.Clone(msg)
	got, err := c.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	want, err := c.JSONPb.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Error("the spliced answer differs from protojson's")
	}
	if strings.Contains(string(got), placeholderPrefix) {
		t.Error("a placeholder is left in the answer")
	}
	if !proto.Equal(msg, before) {
		t.Error("marshalling changed the message")
	}
	if _, spliced, _ := marshalSpliced(bigOrder(10), c.JSONPb.Marshal); spliced {
		t.Error("short strings spliced")
	}
}

// FuzzPlain compares plain's sixteen-bytes-at-a-time test with a byte
// loop.
func FuzzPlain(f *testing.F) {
	f.Add([]byte("abc\"def\\ghi\x1f\x7f\x80~ !"))
	f.Add([]byte("0123456789abcdef0123456789abcde\x7e"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s := strings.Repeat("a", len(b)%16) + string(b) // at every alignment
		want := true
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
				want = false
			}
		}
		if got := plain(s); got != want {
			t.Fatalf("plain(%q) = %v, want %v", s, got, want)
		}
	})
}

// BenchmarkMarshalOrder marshals an order answer holding a 1.1 MB design,
// as the answer to its POST: protojson alone, and with the design spliced.
func BenchmarkMarshalOrder(b *testing.B) {
	c := newCodec()
	msg := &platenv1.Order{Uid: "9f1c", StoreId: "shop-1", Items: []*platenv1.OrderItem{{Uid: "a", TemplateConfig: bigOrder(1_000_000).Items[0].TemplateConfig}}}
	b.Run("protojson", func(b *testing.B) {
		for b.Loop() {
			if _, err := c.JSONPb.Marshal(msg); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("spliced", func(b *testing.B) {
		for b.Loop() {
			if _, err := c.Marshal(msg); err != nil {
				b.Fatal(err)
			}
		}
	})
}
