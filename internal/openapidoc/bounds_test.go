package openapidoc

import (
	"testing"

	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/shop"
)

// TestCommittedDocumentBounds: the committed document carries the limits
// the validators enforce and the words the answers use, as JSON Schema.
func TestCommittedDocumentBounds(t *testing.T) {
	doc := loadDocument(t)
	for schema, props := range propertyRules {
		for name := range props {
			if s := doc.Components.Schemas[schema]; s == nil || s.Value.Properties[name] == nil {
				t.Errorf("a rule for %s.%s, which the document does not have", schema, name)
			}
		}
	}
	prop := func(schema, name string) map[string]any {
		p := doc.Components.Schemas[schema].Value.Properties[name].Value
		out := map[string]any{"minItems": p.MinItems, "enum": len(p.Enum)}
		if p.MaxItems != nil {
			out["maxItems"] = *p.MaxItems
		}
		if p.Min != nil && p.Max != nil {
			out["minimum"], out["maximum"] = *p.Min, *p.Max
		}
		return out
	}
	checks := []struct {
		schema, property, keyword string
		want                      any
	}{
		{"CreateOrderRequest", "items", "minItems", uint64(1)},
		{"CreateOrderRequest", "items", "maxItems", uint64(orders.MaxItems)},
		{"OrderItemInput", "thumbnails", "minItems", uint64(1)},
		{"OrderItemInput", "thumbnails", "maxItems", uint64(orders.MaxThumbnails)},
		{"OrderItemInput", "quantity", "minimum", 1.0},
		{"OrderItemInput", "quantity", "maximum", float64(orders.MaxQuantity)},
		{"CreateShopOrderRequest", "lines", "maxItems", uint64(shop.MaxLines)},
		{"ShopOrderLineInput", "quantity", "maximum", float64(shop.MaxQuantity)},
		{"OrderItemPrint", "status", "enum", 4},
		{"ShopPrint", "status", "enum", 4},
		{"PrintEvent", "kind", "enum", 7},
		{"WebhookDelivery", "event", "enum", 5},
		{"WebhookDelivery", "status", "enum", 3},
		{"BatchOrder", "status", "enum", 3},
	}
	for _, c := range checks {
		if got := prop(c.schema, c.property)[c.keyword]; got != c.want {
			t.Errorf("%s.%s %s: %v, want %v", c.schema, c.property, c.keyword, got, c.want)
		}
	}
}
