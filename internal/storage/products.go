package storage

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/platen-print/platen/ent"
	"github.com/platen-print/platen/ent/predicate"
	"github.com/platen-print/platen/ent/product"
	"github.com/platen-print/platen/ent/productcategory"
	"github.com/platen-print/platen/ent/productvariant"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/catalog"
)

var _ catalog.ProductStore = (*Catalog)(nil)

// CategoryExists reports whether the team has a category with this id.
func (s *Catalog) CategoryExists(ctx context.Context, teamID, categoryID int) (bool, error) {
	return s.db.read.ProductCategory.Query().
		Where(productcategory.TeamID(teamID), productcategory.ID(categoryID)).Exist(ctx)
}

// CreateProduct inserts p with a new uuid.
func (s *Catalog) CreateProduct(ctx context.Context, p *catalog.Product) error {
	p.UUID = uuid.NewString()
	now := time.Now().UTC().Truncate(time.Microsecond)
	return s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		row, err := tx.Product.Create().
			SetUUID(p.UUID).SetTeamID(p.TeamID).SetCategoryID(p.CategoryID).SetName(p.Name).
			SetNillableCode(p.Code).SetOrderColumn(p.OrderColumn).SetActive(p.Active).
			SetNillableDescription(p.Description).SetNillableDefaultDpi(p.DefaultDPI).
			SetNillableEditorCategoryID(p.EditorCategoryID).SetNillableDefaultLocationID(p.DefaultLocationID).
			SetCreatedAt(now).SetUpdatedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		p.ID, p.CreatedAt, p.UpdatedAt = row.ID, row.CreatedAt, row.UpdatedAt
		return nil
	})
}

// GetProduct returns the team's product.
func (s *Catalog) GetProduct(ctx context.Context, teamID, id int) (*catalog.Product, error) {
	return getProduct(ctx, s.db.read, teamID, id)
}

func getProduct(ctx context.Context, client *ent.Client, teamID, id int) (*catalog.Product, error) {
	row, err := client.Product.Query().Where(product.TeamID(teamID), product.ID(id)).Only(ctx)
	if err != nil {
		return nil, notFound(err, "product %d not found", id)
	}
	return productFromRow(row), nil
}

// ListProducts returns a page of products, newest first.
func (s *Catalog) ListProducts(ctx context.Context, q catalog.ProductQuery) ([]*catalog.Product, bool, error) {
	query := s.db.read.Product.Query().Where(product.TeamID(q.TeamID))
	if q.CategoryID != nil {
		query = query.Where(product.CategoryID(*q.CategoryID))
	}
	rows, err := query.Where(after[predicate.Product](q.After, product.FieldUUID)).Order(ent.Desc(product.FieldCreatedAt), ent.Desc(product.FieldUUID)).Limit(q.PageSize + 1).All(ctx)
	if err != nil {
		return nil, false, err
	}
	page, more := cutPage(rows, q.PageSize, productFromRow)
	return page, more, nil
}

// UpdateProduct changes the product in one transaction.
func (s *Catalog) UpdateProduct(ctx context.Context, teamID, id int, apply func(*catalog.Product) error) (*catalog.Product, error) {
	var p *catalog.Product
	err := s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		var err error
		if p, err = getProduct(ctx, tx.Client(), teamID, id); err != nil {
			return err
		}
		if err := apply(p); err != nil {
			return err
		}
		u := tx.Product.UpdateOneID(p.ID).SetCategoryID(p.CategoryID).SetName(p.Name).
			SetOrderColumn(p.OrderColumn).SetActive(p.Active)
		setOrClear(p.Code, u.SetCode, u.ClearCode)
		setOrClear(p.Description, u.SetDescription, u.ClearDescription)
		setOrClear(p.DefaultDPI, u.SetDefaultDpi, u.ClearDefaultDpi)
		setOrClear(p.EditorCategoryID, u.SetEditorCategoryID, u.ClearEditorCategoryID)
		setOrClear(p.DefaultLocationID, u.SetDefaultLocationID, u.ClearDefaultLocationID)
		row, err := u.Save(ctx)
		if err != nil {
			return err
		}
		p.UpdatedAt = row.UpdatedAt.UTC()
		return nil
	})
	return p, err
}

// DeleteProduct removes the team's product, refusing while it has
// variants.
func (s *Catalog) DeleteProduct(ctx context.Context, teamID, id int) error {
	return s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		exists, err := tx.Product.Query().Where(product.TeamID(teamID), product.ID(id)).Exist(ctx)
		if err != nil {
			return err
		}
		if !exists {
			return apierr.NotFound("product %d not found", id)
		}
		variants, err := tx.ProductVariant.Query().Where(productvariant.ProductID(id)).Exist(ctx)
		if err != nil {
			return err
		}
		if variants {
			return apierr.Conflict("", "product %d still has variants: delete them first", id)
		}
		return tx.Product.DeleteOneID(id).Exec(ctx)
	})
}

func productFromRow(row *ent.Product) *catalog.Product {
	return &catalog.Product{
		ID: row.ID, UUID: row.UUID, TeamID: row.TeamID, CategoryID: row.CategoryID, Name: row.Name,
		Code: row.Code, OrderColumn: row.OrderColumn, Active: row.Active, Description: row.Description,
		DefaultDPI: row.DefaultDpi, EditorCategoryID: row.EditorCategoryID, DefaultLocationID: row.DefaultLocationID,
		CreatedAt: row.CreatedAt.UTC(), UpdatedAt: row.UpdatedAt.UTC(),
	}
}
