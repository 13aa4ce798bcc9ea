package catalog

import (
	"context"
	"time"

	"github.com/platen-print/platen/internal/pagination"
)

// ProductDeletedMessage is the spec's confirmation text.
const ProductDeletedMessage = "Product successfully deleted"

// Product is an item of the catalogue, in one category of its team.
type Product struct {
	ID                int
	UUID              string
	TeamID            int
	CategoryID        int
	Name              string
	Code              *string
	OrderColumn       int
	Active            bool
	Description       *string
	DefaultDPI        *int
	EditorCategoryID  *string
	DefaultLocationID *int
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// ProductQuery selects a page of products.
type ProductQuery struct {
	TeamID     int
	CategoryID *int
	After      *pagination.Cursor
	PageSize   int
}

// ProductStore is the persistence products need; a product of another
// team is apierr.ErrNotFound.
type ProductStore interface {
	// CategoryExists reports whether the team has a category with this id.
	CategoryExists(ctx context.Context, teamID, categoryID int) (bool, error)
	CreateProduct(ctx context.Context, p *Product) error
	GetProduct(ctx context.Context, teamID, id int) (*Product, error)
	ListProducts(ctx context.Context, q ProductQuery) (page []*Product, more bool, err error)
	UpdateProduct(ctx context.Context, teamID, id int, apply func(*Product) error) (*Product, error)
	DeleteProduct(ctx context.Context, teamID, id int) error
}
