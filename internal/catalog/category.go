// Package catalog owns a team's catalogue: product categories (this far),
// products and variants, and the gRPC CatalogService that grpc-gateway
// exposes under /api/v1/product-categories, /products and /product-variants.
package catalog

import (
	"context"
	"time"

	"github.com/platen-print/platen/internal/pagination"
)

// DefaultDPI is a category's default_dpi when none is given (the spec's).
const DefaultDPI = 300

// CategoryDeletedMessage is the spec's confirmation text.
const CategoryDeletedMessage = "Product category successfully deleted"

// Category is a node of a team's category tree.
type Category struct {
	ID        int
	UID       string
	TeamID    int
	Name      string
	ParentID  *int
	ParentUID *string
	// Description, EditorCategoryID and DefaultLocationID are optional.
	Description       *string
	DefaultDPI        int
	EditorCategoryID  *string
	DefaultLocationID *string
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// CategoryQuery selects a page of categories.
type CategoryQuery struct {
	TeamID int
	// ParentID keeps the children of one category; nil keeps every one.
	ParentID *int
	After    *pagination.Cursor
	PageSize int
}

// Store is the persistence categories need. A ref is a category's uid or
// its integer id as text; a category of another team is apierr.ErrNotFound.
type Store interface {
	// ResolveCategory returns the id and uid of the team's category ref.
	ResolveCategory(ctx context.Context, teamID int, ref string) (id int, uid string, err error)
	CreateCategory(ctx context.Context, c *Category) error
	GetCategory(ctx context.Context, teamID int, ref string) (*Category, error)
	ListCategories(ctx context.Context, q CategoryQuery) (page []*Category, more bool, err error)
	// UpdateCategory loads the category, lets apply change it and writes it
	// in one transaction, refusing a parent that would make a cycle.
	UpdateCategory(ctx context.Context, teamID int, ref string, apply func(*Category) error) (*Category, error)
	// DeleteCategory removes a category without children (else a conflict)
	// and returns its uid.
	DeleteCategory(ctx context.Context, teamID int, ref string) (uid string, err error)
}
