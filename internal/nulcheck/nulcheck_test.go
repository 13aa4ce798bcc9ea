package nulcheck

import (
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
)

// With several NULs in a map, the entry with the smallest key is named,
// every time, though maps range in random order.
func TestFindNamesTheSmallestKey(t *testing.T) {
	props, err := structpb.NewStruct(map[string]any{
		"m": "\x00", "b": []any{"ok", "\x00"}, "k\x00": 1, "z": map[string]any{"y": "\x00"}, "a": "clean",
	})
	if err != nil {
		t.Fatal(err)
	}
	req := &platenv1.CreateOrderRequest{Items: []*platenv1.OrderItem{{}, {Properties: props}}}
	for range 50 {
		v, found := Find(req)
		if !found || v.Field != "items[1].properties.b[1]" || v.Description != inString {
			t.Fatalf("Find = %+v, %v; want items[1].properties.b[1]", v, found)
		}
	}
	delete(props.Fields, "b")
	if v, _ := Find(req); v.Field != "items[1].properties" || v.Description != inKey {
		t.Errorf("Find = %+v; want the key k\\x00 named by its object", v)
	}
}

// BenchmarkFind walks a clean order of 1,000 items, each with properties.
func BenchmarkFind(b *testing.B) {
	props, err := structpb.NewStruct(map[string]any{"colour": "red", "size": "L", "n": []any{"a", "b"}})
	if err != nil {
		b.Fatal(err)
	}
	req := &platenv1.CreateOrderRequest{StoreId: "s", EcommerceOrderId: "o"}
	for range 1000 {
		q := int32(1)
		req.Items = append(req.Items, &platenv1.OrderItem{EcommerceOrderItemId: "item-1", EcommerceVariantId: "v", Quantity: &q,
			TemplateConfig: "%7B%22a%22%3A1%7D", Thumbnails: []string{"https://x/t.png"}, Properties: props})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, found := Find(req); found {
			b.Fatal("found a NUL")
		}
	}
}
