package orders

import (
	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/fieldmask"
)

// updatable are the order fields a PUT may replace. store_id,
// ecommerce_order_id and create_print_files are fixed at creation.
var updatable = []string{
	"customer", "items", "ecommerce_order_number", "total_price", "subtotal_price",
	"currency_code", "note", "addresses", "shippings",
}

// updateFields returns the fields the request replaces (see fieldmask).
func updateFields(req *platenv1.UpdateOrderRequest) ([]string, error) {
	return fieldmask.Fields(req.UpdateMask, updatable, map[string]bool{
		"customer":               req.Customer != nil,
		"items":                  len(req.Items) > 0,
		"ecommerce_order_number": req.EcommerceOrderNumber != nil,
		"total_price":            req.TotalPrice != nil,
		"subtotal_price":         req.SubtotalPrice != nil,
		"currency_code":          req.CurrencyCode != nil,
		"note":                   req.Note != nil,
		"addresses":              len(req.Addresses) > 0,
		"shippings":              len(req.Shippings) > 0,
	}, "order_uid")
}

// orderUpdate is a checked PUT: the fields it replaces and their new values.
type orderUpdate struct {
	fields []string
	values Order
}

// newOrderUpdate checks the fields a PUT replaces, with the same rules as a
// create.
func newOrderUpdate(req *platenv1.UpdateOrderRequest) (*orderUpdate, error) {
	fields, err := updateFields(req)
	if err != nil {
		return nil, err
	}
	var c checker
	u := &orderUpdate{fields: fields}
	for _, f := range fields {
		switch f {
		case "customer":
			u.values.Customer = c.customer(req.Customer)
		case "items":
			u.values.Items = c.items(req.Items)
		case "ecommerce_order_number":
			u.values.EcommerceOrderNumber = c.optionalString(f, req.EcommerceOrderNumber, maxIDLength)
		case "total_price":
			u.values.TotalPrice = c.amount(f, doubleValue(req.TotalPrice))
		case "subtotal_price":
			u.values.SubtotalPrice = c.amount(f, doubleValue(req.SubtotalPrice))
		case "currency_code":
			u.values.CurrencyCode = c.currency(f, req.CurrencyCode)
		case "note":
			u.values.Note = c.optionalString(f, req.Note, maxTextLength)
		case "addresses":
			u.values.Addresses = c.addresses(req.Addresses)
		case "shippings":
			u.values.Shippings = c.shippings(req.Shippings)
		}
	}
	return u, c.Err()
}

// apply writes the update into o: present fields replace, arrays replace
// whole, and items match by ecommerce_order_item_id.
func (u *orderUpdate) apply(o *Order) error {
	v := &u.values
	for _, f := range u.fields {
		switch f {
		case "customer":
			o.Customer = v.Customer
		case "items":
			o.Items = mergeItems(o.Items, v.Items)
		case "ecommerce_order_number":
			o.EcommerceOrderNumber = v.EcommerceOrderNumber
		case "total_price":
			o.TotalPrice = v.TotalPrice
		case "subtotal_price":
			o.SubtotalPrice = v.SubtotalPrice
		case "currency_code":
			o.CurrencyCode = v.CurrencyCode
		case "note":
			o.Note = v.Note
		case "addresses":
			o.Addresses = v.Addresses
		case "shippings":
			o.Shippings = v.Shippings
		}
	}
	return nil
}

// mergeItems returns the new item list: an item whose
// ecommerce_order_item_id was already there keeps its id, uid and print
// file, unless its template_config changed, when its print starts over.
// Items left out of the new list go; new ones come without an id.
func mergeItems(old, next []Item) []Item {
	byID := make(map[string]Item, len(old))
	for _, it := range old {
		byID[it.EcommerceOrderItemID] = it
	}
	out := make([]Item, len(next))
	for i, it := range next {
		if prev, ok := byID[it.EcommerceOrderItemID]; ok {
			it.ID, it.UID, it.Print = prev.ID, prev.UID, prev.Print
			if prev.TemplateConfig != it.TemplateConfig {
				it.Print = PrintFile{Status: PrintReceived}
			}
		}
		out[i] = it
	}
	return out
}
