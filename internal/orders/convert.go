package orders

import (
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/files"
)

// toProto renders the order details answered by create, get and update.
func (s *Service) toProto(o *Order) *platenv1.Order {
	out := &platenv1.Order{
		Uid:                  o.UID,
		StoreId:              o.StoreID,
		EcommerceOrderId:     o.EcommerceOrderID,
		EcommerceOrderNumber: stringValue(o.EcommerceOrderNumber),
		TotalPrice:           doubleWrapper(o.TotalPrice),
		SubtotalPrice:        doubleWrapper(o.SubtotalPrice),
		CurrencyCode:         stringValue(o.CurrencyCode),
		Note:                 stringValue(o.Note),
		CreatePrintFiles:     o.CreatePrintFiles,
		Items:                make([]*platenv1.OrderItem, len(o.Items)),
		CreatedAt:            timestamppb.New(o.CreatedAt),
		UpdatedAt:            timestamppb.New(o.UpdatedAt),
	}
	out.Customer, out.Addresses, out.Shippings = Recipient(o)
	for i := range o.Items {
		out.Items[i] = itemProto(&o.Items[i])
		out.Items[i].Print.Url = s.printURL(o.UID, &o.Items[i])
	}
	return out
}

// Recipient is the order's customer, addresses and shippings as the API
// shows them (the operator's order page too).
func Recipient(o *Order) (*platenv1.Customer, []*platenv1.Address, []*platenv1.Shipping) {
	addresses, shippings := make([]*platenv1.Address, len(o.Addresses)), make([]*platenv1.Shipping, len(o.Shippings))
	for i, a := range o.Addresses {
		addresses[i] = addressProto(a)
	}
	for i, s := range o.Shippings {
		price := s.ShippingPrice
		shippings[i] = &platenv1.Shipping{Code: s.Code, ShippingPrice: &price}
	}
	return customerProto(o.Customer), addresses, shippings
}

func customerProto(c *Customer) *platenv1.Customer {
	if c == nil {
		return nil
	}
	return &platenv1.Customer{
		Email:               stringValue(c.Email),
		EcommerceCustomerId: stringValue(c.EcommerceCustomerID),
		Name:                stringValue(c.Name),
		Surname:             stringValue(c.Surname),
		Phone:               stringValue(c.Phone),
	}
}

func addressProto(a Address) *platenv1.Address {
	out := &platenv1.Address{
		TypeId:      a.TypeID,
		Address_1:   a.Address1,
		Address_2:   stringValue(a.Address2),
		PostCode:    a.PostCode,
		City:        a.City,
		County:      stringValue(a.County),
		CountryCode: a.CountryCode,
	}
	if a.CountryID != nil {
		out.CountryId = wrapperspb.Int32(*a.CountryID)
	}
	return out
}

func itemProto(it *Item) *platenv1.OrderItem {
	quantity := int32(it.Quantity)
	out := &platenv1.OrderItem{
		Uid:                  it.UID,
		EcommerceOrderItemId: it.EcommerceOrderItemID,
		EcommerceVariantId:   it.EcommerceVariantID,
		Quantity:             &quantity,
		Price:                doubleWrapper(it.Price),
		TemplateConfig:       it.TemplateConfig,
		Thumbnails:           it.Thumbnails,
		DesignVersionId:      stringValue(it.DesignVersionID),
		Print:                printProto(it.Print),
	}
	if len(it.Properties) > 0 {
		props := &structpb.Struct{}
		if protojson.Unmarshal(it.Properties, props) == nil {
			out.Properties = props
		}
	}
	if out.Thumbnails == nil {
		out.Thumbnails = []string{}
	}
	return out
}

// printProto is an item's print file but its url, which only the service
// can sign.
func printProto(p PrintFile) *platenv1.PrintFile {
	d := readyDigest(p)
	return &platenv1.PrintFile{Status: p.Status, Error: stringValue(p.Error), Size: files.SizeProto(d), Sha256: files.SHA256Proto(d),
		Warnings: files.WarningsProto(p.Status == PrintReady, p.Warnings)}
}

// readyDigest is the size and SHA-256 of a ready print's file; nil while
// there is no file, or for one stored before they were kept.
func readyDigest(p PrintFile) *files.Digest {
	if p.Status != PrintReady {
		return nil
	}
	return p.Digest
}

// printURL is a fresh download link for a ready item, else null.
func (s *Service) printURL(orderUID string, it *Item) *wrapperspb.StringValue {
	if it.Print.Status != PrintReady || s.links == nil {
		return nil
	}
	return wrapperspb.String(s.links.ItemURL(orderUID, it.UID))
}

func stringValue(s *string) *wrapperspb.StringValue {
	if s == nil {
		return nil
	}
	return wrapperspb.String(*s)
}

func doubleWrapper(f *float64) *wrapperspb.DoubleValue {
	if f == nil {
		return nil
	}
	return wrapperspb.Double(*f)
}
