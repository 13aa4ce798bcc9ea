package orders

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/designversions"
)

// Limits on what one order may hold; they keep a single request's work and
// storage bounded. The body itself is capped at 8 MiB by the gateway.
const (
	MaxItems       = 1000
	maxIDLength    = 255
	MaxQuantity    = 1_000_000
	MaxThumbnails  = 50
	maxAddresses   = 20
	maxShippings   = 20
	maxTextLength  = 10_000
	currencyLength = 3
)

// checker accumulates violations while a request is turned into the model.
type checker struct{ apierr.Violations }

func (c *checker) requiredID(field, value string) string {
	switch {
	case value == "":
		c.Add(field, "is required")
	case utf8.RuneCountInString(value) > maxIDLength:
		c.Add(field, "must be at most %d characters", maxIDLength)
	}
	return value
}

func (c *checker) optionalString(field string, v *wrapperspb.StringValue, limit int) *string {
	if v == nil {
		return nil
	}
	if utf8.RuneCountInString(v.Value) > limit {
		c.Add(field, "must be at most %d characters", limit)
	}
	s := v.Value
	return &s
}

func (c *checker) amount(field string, v *float64) *float64 {
	if v == nil {
		return nil
	}
	switch {
	case math.IsNaN(*v) || math.IsInf(*v, 0):
		c.Add(field, "must be a finite number")
	case *v < 0:
		c.Add(field, "must not be negative")
	}
	return v
}

func doubleValue(v *wrapperspb.DoubleValue) *float64 {
	if v == nil {
		return nil
	}
	f := v.Value
	return &f
}

func (c *checker) currency(field string, v *wrapperspb.StringValue) *string {
	if v == nil {
		return nil
	}
	code := strings.ToUpper(v.Value)
	if len(code) != currencyLength || strings.Trim(code, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		c.Add(field, "must be a three-letter ISO 4217 currency code, got %q", v.Value)
	}
	return &code
}

func (c *checker) customer(v *platenv1.Customer) *Customer {
	if v == nil {
		return nil
	}
	return &Customer{
		Email:               c.optionalString("customer.email", v.Email, maxIDLength),
		EcommerceCustomerID: c.optionalString("customer.ecommerce_customer_id", v.EcommerceCustomerId, maxIDLength),
		Name:                c.optionalString("customer.name", v.Name, maxIDLength),
		Surname:             c.optionalString("customer.surname", v.Surname, maxIDLength),
		Phone:               c.optionalString("customer.phone", v.Phone, maxIDLength),
	}
}

func (c *checker) addresses(list []*platenv1.Address) []Address {
	if len(list) > maxAddresses {
		c.Add("addresses", "must hold at most %d addresses", maxAddresses)
		return nil
	}
	out := make([]Address, 0, len(list))
	for i, a := range list {
		f := fmt.Sprintf("addresses[%d].", i)
		if a.TypeId != "billing" && a.TypeId != "shipping" {
			c.Add(f+"type_id", "must be \"billing\" or \"shipping\", got %q", a.TypeId)
		}
		addr := Address{
			TypeID:      a.TypeId,
			Address1:    c.requiredText(f+"address_1", a.Address_1),
			Address2:    c.optionalString(f+"address_2", a.Address_2, maxIDLength),
			PostCode:    c.requiredID(f+"post_code", a.PostCode),
			City:        c.requiredID(f+"city", a.City),
			County:      c.optionalString(f+"county", a.County, maxIDLength),
			CountryCode: c.requiredID(f+"country_code", a.CountryCode),
		}
		if a.CountryId != nil {
			id := a.CountryId.Value
			if id <= 0 {
				c.Add(f+"country_id", "must be a positive ISO 3166-1 numeric code")
			}
			addr.CountryID = &id
		}
		out = append(out, addr)
	}
	return out
}

func (c *checker) requiredText(field, value string) string {
	if value == "" {
		c.Add(field, "is required")
	} else if utf8.RuneCountInString(value) > maxIDLength {
		c.Add(field, "must be at most %d characters", maxIDLength)
	}
	return value
}

func (c *checker) shippings(list []*platenv1.Shipping) []Shipping {
	if len(list) > maxShippings {
		c.Add("shippings", "must hold at most %d shippings", maxShippings)
		return nil
	}
	out := make([]Shipping, 0, len(list))
	for i, s := range list {
		f := fmt.Sprintf("shippings[%d].", i)
		sh := Shipping{Code: c.requiredID(f+"code", s.Code)}
		if s.ShippingPrice == nil {
			c.Add(f+"shipping_price", "is required")
		} else {
			sh.ShippingPrice = *c.amount(f+"shipping_price", s.ShippingPrice)
		}
		out = append(out, sh)
	}
	return out
}

// items checks the order's items; an order holds at least one, and each
// ecommerce_order_item_id once.
func (c *checker) items(list []*platenv1.OrderItem) []Item {
	switch {
	case len(list) == 0:
		c.Add("items", "is required: an order holds at least one item")
		return nil
	case len(list) > MaxItems:
		c.Add("items", "must hold at most %d items", MaxItems)
		return nil
	}
	seen := make(map[string]int, len(list))
	out := make([]Item, 0, len(list))
	for i, it := range list {
		item := c.item(fmt.Sprintf("items[%d].", i), it)
		if first, dup := seen[item.EcommerceOrderItemID]; dup && item.EcommerceOrderItemID != "" {
			c.Add(fmt.Sprintf("items[%d].ecommerce_order_item_id", i), "repeats items[%d]: each item id may appear once", first)
		}
		seen[item.EcommerceOrderItemID] = i
		out = append(out, item)
	}
	return out
}

func (c *checker) item(f string, it *platenv1.OrderItem) Item {
	item := Item{
		EcommerceOrderItemID: c.requiredID(f+"ecommerce_order_item_id", it.EcommerceOrderItemId),
		EcommerceVariantID:   c.requiredID(f+"ecommerce_variant_id", it.EcommerceVariantId),
		Price:                c.amount(f+"price", doubleValue(it.Price)),
		Properties:           c.properties(f+"properties", it.Properties),
		TemplateConfig:       it.TemplateConfig,
		DesignVersionID:      stringPointer(it.DesignVersionId),
		Print:                PrintFile{Status: PrintReceived},
	}
	// Violations come in the body's field order.
	doc := c.templateConfig(f+"template_config", it.TemplateConfig)
	item.Thumbnails = c.thumbnails(f+"thumbnails", it.Thumbnails)
	switch {
	case it.Quantity == nil:
		c.Add(f+"quantity", "is required")
	case *it.Quantity < 1:
		c.Add(f+"quantity", "must be at least 1, got %d", *it.Quantity)
	case *it.Quantity > MaxQuantity:
		c.Add(f+"quantity", "must be at most %d, got %d", MaxQuantity, *it.Quantity)
	default:
		item.Quantity = int(*it.Quantity)
	}
	if item.DesignVersionID != nil {
		item.DesignFingerprint = c.designVersion(f+"design_version_id", *item.DesignVersionID, doc)
	}
	return item
}

func (c *checker) properties(field string, s *structpb.Struct) json.RawMessage {
	if s == nil {
		return nil
	}
	raw, err := protojson.Marshal(s)
	if err != nil {
		c.Add(field, "must be a JSON object: %v", err)
		return nil
	}
	return raw
}

// designVersion checks an item's design_version_id and returns the
// fingerprint its version is registered with; doc is nil when the
// template_config was refused, which is reported as such.
func (c *checker) designVersion(field, id string, doc []byte) string {
	if err := designversions.CheckID(id); err != nil {
		c.Add(field, "%v", err)
		return ""
	}
	if doc == nil {
		return ""
	}
	fingerprint, err := designdoc.Fingerprint(doc)
	if err != nil {
		return ""
	}
	return fingerprint
}

// templateConfig checks that value URL-decodes to a JSON object, the
// design document the customiser produced, and returns the document (nil
// when refused). The stored value is the string as sent.
func (c *checker) templateConfig(field, value string) []byte {
	if value == "" {
		c.Add(field, "is required")
		return nil
	}
	doc, err := designdoc.Accept(value)
	if err != nil {
		f, msg := designdoc.FieldOf(field, err)
		c.Add(f, "%s", msg)
	}
	return doc
}

func (c *checker) thumbnails(field string, list []string) []string {
	switch {
	case len(list) == 0:
		c.Add(field, "is required: give at least one thumbnail URL")
	case len(list) > MaxThumbnails:
		c.Add(field, "must hold at most %d URLs", MaxThumbnails)
	}
	for i, u := range list {
		if u == "" {
			c.Add(fmt.Sprintf("%s[%d]", field, i), "must not be empty")
		} else if utf8.RuneCountInString(u) > maxTextLength {
			c.Add(fmt.Sprintf("%s[%d]", field, i), "must be at most %d characters", maxTextLength)
		}
	}
	return list
}

// newOrder checks a create request and returns the order it describes.
func newOrder(req *platenv1.CreateOrderRequest) (*Order, error) {
	var c checker
	o := &Order{
		StoreID:              c.requiredID("store_id", req.StoreId),
		EcommerceOrderID:     c.requiredID("ecommerce_order_id", req.EcommerceOrderId),
		EcommerceOrderNumber: c.optionalString("ecommerce_order_number", req.EcommerceOrderNumber, maxIDLength),
		TotalPrice:           c.amount("total_price", doubleValue(req.TotalPrice)),
		SubtotalPrice:        c.amount("subtotal_price", doubleValue(req.SubtotalPrice)),
		CurrencyCode:         c.currency("currency_code", req.CurrencyCode),
		Customer:             c.customer(req.Customer),
		Note:                 c.optionalString("note", req.Note, maxTextLength),
		Addresses:            c.addresses(req.Addresses),
		Shippings:            c.shippings(req.Shippings),
		CreatePrintFiles:     req.CreatePrintFiles,
		Items:                c.items(req.Items),
	}
	return o, c.Err()
}

func stringPointer(v *wrapperspb.StringValue) *string {
	if v == nil {
		return nil
	}
	s := v.Value
	return &s
}
