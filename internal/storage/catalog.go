package storage

import (
	"context"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/platen-print/platen/ent"
	"github.com/platen-print/platen/ent/predicate"
	"github.com/platen-print/platen/ent/product"
	"github.com/platen-print/platen/ent/productcategory"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/catalog"
)

// Catalog implements catalog.Store.
type Catalog struct{ db *DB }

// Catalog returns the catalogue store.
func (db *DB) Catalog() *Catalog { return &Catalog{db: db} }

var _ catalog.Store = (*Catalog)(nil)

// maxCategoryDepth bounds the walk up a category's ancestors.
const maxCategoryDepth = 64

// categoryRef selects the team's category by uid or by integer id as text.
func categoryRef(teamID int, ref string) predicate.ProductCategory {
	if id, err := strconv.Atoi(ref); err == nil {
		return productcategory.And(productcategory.TeamID(teamID), productcategory.ID(id))
	}
	return productcategory.And(productcategory.TeamID(teamID), productcategory.UID(ref))
}

// ResolveCategory returns the id and uid of the team's category ref.
func (s *Catalog) ResolveCategory(ctx context.Context, teamID int, ref string) (int, string, error) {
	row, err := s.db.read.ProductCategory.Query().Where(categoryRef(teamID, ref)).
		Select(productcategory.FieldID, productcategory.FieldUID).Only(ctx)
	if err != nil {
		return 0, "", notFound(err, "category %q not found", ref)
	}
	return row.ID, row.UID, nil
}

// CreateCategory inserts c.
func (s *Catalog) CreateCategory(ctx context.Context, c *catalog.Category) error {
	c.UID = uuid.NewString()
	now := time.Now().UTC().Truncate(time.Microsecond)
	return s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		row, err := tx.ProductCategory.Create().
			SetUID(c.UID).SetTeamID(c.TeamID).SetName(c.Name).
			SetNillableParentID(c.ParentID).SetNillableDescription(c.Description).
			SetDefaultDpi(c.DefaultDPI).SetNillableEditorCategoryID(c.EditorCategoryID).
			SetNillableDefaultLocationID(c.DefaultLocationID).
			SetCreatedAt(now).SetUpdatedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		c.ID, c.CreatedAt, c.UpdatedAt = row.ID, row.CreatedAt, row.UpdatedAt
		return nil
	})
}

// GetCategory returns the team's category ref.
func (s *Catalog) GetCategory(ctx context.Context, teamID int, ref string) (*catalog.Category, error) {
	return getCategory(ctx, s.db.read, teamID, ref)
}

func getCategory(ctx context.Context, client *ent.Client, teamID int, ref string) (*catalog.Category, error) {
	row, err := client.ProductCategory.Query().Where(categoryRef(teamID, ref)).
		WithParent(func(q *ent.ProductCategoryQuery) { q.Select(productcategory.FieldUID) }).Only(ctx)
	if err != nil {
		return nil, notFound(err, "category %q not found", ref)
	}
	return categoryFromRow(row), nil
}

// ListCategories returns a page of categories, newest first.
func (s *Catalog) ListCategories(ctx context.Context, q catalog.CategoryQuery) ([]*catalog.Category, bool, error) {
	query := s.db.read.ProductCategory.Query().Where(productcategory.TeamID(q.TeamID))
	if q.ParentID != nil {
		query = query.Where(productcategory.ParentID(*q.ParentID))
	}
	rows, err := query.Where(after[predicate.ProductCategory](q.After, productcategory.FieldUID)).WithParent(func(pq *ent.ProductCategoryQuery) { pq.Select(productcategory.FieldUID) }).
		Order(ent.Desc(productcategory.FieldCreatedAt), ent.Desc(productcategory.FieldUID)).
		Limit(q.PageSize + 1).All(ctx)
	if err != nil {
		return nil, false, err
	}
	page, more := cutPage(rows, q.PageSize, categoryFromRow)
	return page, more, nil
}

// UpdateCategory changes the category in one transaction and refuses a
// parent whose ancestors include the category itself.
func (s *Catalog) UpdateCategory(ctx context.Context, teamID int, ref string, apply func(*catalog.Category) error) (*catalog.Category, error) {
	var c *catalog.Category
	err := s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		var err error
		if c, err = getCategory(ctx, tx.Client(), teamID, ref); err != nil {
			return err
		}
		if err := apply(c); err != nil {
			return err
		}
		if err := checkNoCycle(ctx, tx, c); err != nil {
			return err
		}
		u := tx.ProductCategory.UpdateOneID(c.ID).SetName(c.Name).SetDefaultDpi(c.DefaultDPI)
		setOrClear(c.ParentID, u.SetParentID, u.ClearParentID)
		setOrClear(c.Description, u.SetDescription, u.ClearDescription)
		setOrClear(c.EditorCategoryID, u.SetEditorCategoryID, u.ClearEditorCategoryID)
		setOrClear(c.DefaultLocationID, u.SetDefaultLocationID, u.ClearDefaultLocationID)
		row, err := u.Save(ctx)
		if err != nil {
			return err
		}
		c.UpdatedAt = row.UpdatedAt.UTC()
		return nil
	})
	return c, err
}

// checkNoCycle walks up from c's new parent: meeting c means the move would
// make c its own ancestor.
func checkNoCycle(ctx context.Context, tx *Tx, c *catalog.Category) error {
	next := c.ParentID
	for depth := 0; next != nil; depth++ {
		if *next == c.ID {
			return apierr.Invalid("parent_id", "category %s cannot be its own ancestor", c.UID)
		}
		if depth >= maxCategoryDepth {
			return apierr.Invalid("parent_id", "categories nest at most %d deep", maxCategoryDepth)
		}
		row, err := tx.ProductCategory.Query().Where(productcategory.ID(*next)).
			Select(productcategory.FieldParentID).Only(ctx)
		if err != nil {
			return err
		}
		next = row.ParentID
	}
	return nil
}

// DeleteCategory removes a category that has no children.
func (s *Catalog) DeleteCategory(ctx context.Context, teamID int, ref string) (string, error) {
	var uid string
	err := s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		row, err := tx.ProductCategory.Query().Where(categoryRef(teamID, ref)).Only(ctx)
		if err != nil {
			return notFound(err, "category %q not found", ref)
		}
		children, err := tx.ProductCategory.Query().Where(productcategory.ParentID(row.ID)).Exist(ctx)
		if err != nil {
			return err
		}
		if children {
			return apierr.Conflict("", "category %s still has child categories: move or delete them first", row.UID)
		}
		products, err := tx.Product.Query().Where(product.CategoryID(row.ID)).Exist(ctx)
		if err != nil {
			return err
		}
		if products {
			return apierr.Conflict("", "category %s still has products: move or delete them first", row.UID)
		}
		uid = row.UID
		return tx.ProductCategory.DeleteOneID(row.ID).Exec(ctx)
	})
	return uid, err
}

func categoryFromRow(row *ent.ProductCategory) *catalog.Category {
	c := &catalog.Category{
		ID: row.ID, UID: row.UID, TeamID: row.TeamID, Name: row.Name, ParentID: row.ParentID,
		Description: row.Description, DefaultDPI: row.DefaultDpi,
		EditorCategoryID: row.EditorCategoryID, DefaultLocationID: row.DefaultLocationID,
		CreatedAt: row.CreatedAt.UTC(), UpdatedAt: row.UpdatedAt.UTC(),
	}
	if p := row.Edges.Parent; p != nil {
		c.ParentUID = &p.UID
	}
	return c
}
