package catalog

import (
	"context"
	"time"

	"github.com/platen-print/platen/internal/pagination"
	"github.com/platen-print/platen/internal/press"
)

// VariantDeletedMessage is the spec's confirmation text.
const VariantDeletedMessage = "Product variant successfully deleted"

// Variant is a printable variant of a product, with its print settings.
type Variant struct {
	ID                     int
	UUID                   string
	TeamID                 int
	ProductID              int
	Name                   string
	VariantCategoryID      *int
	PriceID                *int
	EditorProductID        *string
	Weight                 *int64
	Length, Width, Height  *int
	Description            *string
	CountryID              int
	CustomsCode            *string
	CustomsDescription     *string
	LongCustomsDescription *string
	DefaultDPI             *int
	SEODetails             *string
	EcommerceTags          *string
	DefaultLocationID      *int
	// EcommerceVariantIDs are the client's variant ids whose order items
	// use this variant; each belongs to one variant of the team at most.
	EcommerceVariantIDs []string
	// Press are the variant's press settings (extension), over its team's
	// default for its item prints.
	Press     press.Settings
	CreatedAt time.Time
	UpdatedAt time.Time
}

// VariantQuery selects a page of variants.
type VariantQuery struct {
	TeamID    int
	ProductID *int
	After     *pagination.Cursor
	PageSize  int
}

// VariantStore is the persistence variants need; a variant of another team
// is apierr.ErrNotFound. Create and update answer a conflict naming the
// field when the uuid or an ecommerce variant id is another variant's.
type VariantStore interface {
	// ProductExists reports whether the team has a product with this id.
	ProductExists(ctx context.Context, teamID, productID int) (bool, error)
	CreateVariant(ctx context.Context, v *Variant) error
	GetVariant(ctx context.Context, teamID, id int) (*Variant, error)
	ListVariants(ctx context.Context, q VariantQuery) (page []*Variant, more bool, err error)
	UpdateVariant(ctx context.Context, teamID, id int, apply func(*Variant) error) (*Variant, error)
	DeleteVariant(ctx context.Context, teamID, id int) error
}
