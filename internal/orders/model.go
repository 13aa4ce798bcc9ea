// Package orders owns Family A orders: the order model, the rules a create
// or update must pass, the PUT semantics, and the gRPC OrderService that
// grpc-gateway exposes under /api/v1/orders and /api/v1/order-items.
package orders

import (
	"encoding/json"
	"time"

	"github.com/platen-print/platen/internal/files"
	"github.com/platen-print/platen/internal/pagination"
)

// Print file states of a Family A order item.
const (
	PrintReceived         = "received"
	PrintProcessing       = "processing"
	PrintProcessingFailed = "processingfailed"
	PrintReady            = "ready"
)

// DeletedMessage is the spec's confirmation text for a deleted order.
const DeletedMessage = "Order successfully deleted"

// Order is a Family A order with its items.
type Order struct {
	ID                   int
	UID                  string
	TeamID               int
	StoreID              string
	EcommerceOrderID     string
	EcommerceOrderNumber *string
	TotalPrice           *float64
	SubtotalPrice        *float64
	CurrencyCode         *string
	Customer             *Customer
	Note                 *string
	Addresses            []Address
	Shippings            []Shipping
	CreatePrintFiles     bool
	// PrintFilesRequested: create_print_files, or a later POST
	// …/print-files; new items then render as they come.
	PrintFilesRequested bool
	Items               []Item
	CreatedAt           time.Time
	UpdatedAt           time.Time
	// IdempotencyToken names the create request, when it carried an
	// Idempotency-Key (idempotency.Token); empty otherwise.
	IdempotencyToken string
}

// CreatedBeforeError is CreateOrder's answer when the order's
// ecommerce_order_id was taken by an earlier run of the same request
// (the same Idempotency-Key and body) whose answer was never recorded.
type CreatedBeforeError struct{ UID string }

func (e *CreatedBeforeError) Error() string {
	return "the order was created by an earlier run of this request: " + e.UID
}

// Customer is the buyer; every field is optional.
type Customer struct {
	Email               *string `json:"email,omitempty"`
	EcommerceCustomerID *string `json:"ecommerce_customer_id,omitempty"`
	Name                *string `json:"name,omitempty"`
	Surname             *string `json:"surname,omitempty"`
	Phone               *string `json:"phone,omitempty"`
}

// Address is a billing or shipping address.
type Address struct {
	TypeID      string  `json:"type_id"`
	Address1    string  `json:"address_1"`
	Address2    *string `json:"address_2,omitempty"`
	PostCode    string  `json:"post_code"`
	City        string  `json:"city"`
	County      *string `json:"county,omitempty"`
	CountryCode string  `json:"country_code"`
	CountryID   *int32  `json:"country_id,omitempty"`
}

// Shipping is one shipping service with its price.
type Shipping struct {
	Code          string  `json:"code"`
	ShippingPrice float64 `json:"shipping_price"`
}

// Item is one order line and the state of its print file.
type Item struct {
	ID                   int
	UID                  string
	EcommerceOrderItemID string
	EcommerceVariantID   string
	Quantity             int
	Price                *float64
	// Properties is the item's free-form JSON object, or nil.
	Properties      json.RawMessage
	TemplateConfig  string
	Thumbnails      []string
	DesignVersionID *string
	// DesignFingerprint identifies TemplateConfig's document when the item
	// came in with a DesignVersionID (see designdoc.Fingerprint): the write
	// registers that version with it. Empty for items read back.
	DesignFingerprint string
	Print             PrintFile
}

// PrintFile is where an item's print file stands.
type PrintFile struct {
	Status string
	Error  *string
	// FileKey is the stored file's key once Status is ready.
	FileKey *string
	// Digest is the stored file's size and SHA-256, set with FileKey; nil
	// for a file stored before they were kept.
	Digest *files.Digest
	// JobID is the render job that owns the print; nil until print files
	// are requested.
	JobID *int64
	// Warnings are what the preflight found when the file was made.
	Warnings []files.Warning
}

// ItemPrint is the print state of one item found by its e-commerce id.
type ItemPrint struct {
	StoreID              string
	OrderUID             string
	ItemUID              string
	EcommerceOrderItemID string
	Print                PrintFile
}

// Scope is what a caller may see: its team, and the store its token is bound
// to (empty for a team-wide token).
type Scope struct {
	TeamID  int
	StoreID string
}

// ListQuery selects a page of orders.
type ListQuery struct {
	Scope
	// StoreID filters to one store (in addition to the scope's).
	StoreID string
	// After continues after this order (newest first); nil for the start.
	After    *pagination.Cursor
	PageSize int
	// ByteBudget cuts the page short once its items' design documents and
	// properties pass this many bytes (0: no budget); at least one order
	// is always answered.
	ByteBudget int
}
