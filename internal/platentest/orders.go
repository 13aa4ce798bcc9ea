package platentest

import (
	"fmt"
	"maps"
	"net/url"
)

// EmptyDesign is the smallest design document a print renders from: 10 ×
// 10 mm, no layers.
const EmptyDesign = `{"width":10,"height":10,"layers":[]}`

// OrderItem is a Family A order item: the id, one of variant "v", doc as
// its design (URL-encoded, as the customiser sends it) and a thumbnail.
func OrderItem(id, doc string) map[string]any {
	return map[string]any{
		"ecommerce_order_item_id": id,
		"ecommerce_variant_id":    "v",
		"quantity":                1,
		"template_config":         url.QueryEscape(doc),
		"thumbnails":              []any{"https://example.com/" + url.PathEscape(id) + ".png"},
	}
}

// OrderOption changes the order OrderBody makes.
type OrderOption func(*orderSpec)

type orderSpec struct {
	items      []map[string]any
	design     string
	printFiles bool
}

// Items gives the order an item for each entry in place of its one: an
// OrderItem with id orderID-1, orderID-2 …, the entry's fields over its own.
func Items(fields ...map[string]any) OrderOption {
	return func(o *orderSpec) { o.items = fields }
}

// Design is the design document of the items whose fields do not give
// one (EmptyDesign otherwise).
func Design(doc string) OrderOption {
	return func(o *orderSpec) { o.design = doc }
}

// PrintFiles asks for the order's print files at once
// (create_print_files), rather than when it is reviewed.
func PrintFiles() OrderOption {
	return func(o *orderSpec) { o.printFiles = true }
}

// OrderBody is a Family A order of store (the body of POST /api/v1/orders):
// one item, orderID-1, of EmptyDesign, or as opts say.
func OrderBody(store, orderID string, opts ...OrderOption) map[string]any {
	spec := orderSpec{items: []map[string]any{nil}, design: EmptyDesign}
	for _, opt := range opts {
		opt(&spec)
	}
	items := make([]any, len(spec.items))
	for i, fields := range spec.items {
		item := OrderItem(fmt.Sprintf("%s-%d", orderID, i+1), spec.design)
		maps.Copy(item, fields)
		items[i] = item
	}
	order := map[string]any{"store_id": store, "ecommerce_order_id": orderID, "items": items}
	if spec.printFiles {
		order["create_print_files"] = true
	}
	return order
}
