package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/platen-print/platen/ent"
	"github.com/platen-print/platen/ent/predicate"
	"github.com/platen-print/platen/ent/product"
	"github.com/platen-print/platen/ent/productvariant"
	"github.com/platen-print/platen/ent/variantlink"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/catalog"
)

var _ catalog.VariantStore = (*Catalog)(nil)

// ProductExists reports whether the team has a product with this id.
func (s *Catalog) ProductExists(ctx context.Context, teamID, productID int) (bool, error) {
	return s.db.read.Product.Query().Where(product.TeamID(teamID), product.ID(productID)).Exist(ctx)
}

// CreateVariant inserts v with its ecommerce variant links.
func (s *Catalog) CreateVariant(ctx context.Context, v *catalog.Variant) error {
	now := time.Now().UTC().Truncate(time.Microsecond)
	err := s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		if err := checkVariantUnique(ctx, tx.Client(), v); err != nil {
			return err
		}
		if err := checkProfileOf(ctx, tx.Client(), v.TeamID, v.Press); err != nil {
			return err
		}
		b := tx.ProductVariant.Create().SetTeamID(v.TeamID).SetCreatedAt(now).SetUpdatedAt(now)
		setVariantFields(b.Mutation(), v)
		row, err := b.Save(ctx)
		if err != nil {
			return err
		}
		v.ID, v.CreatedAt, v.UpdatedAt = row.ID, row.CreatedAt.UTC(), row.UpdatedAt.UTC()
		return insertLinks(ctx, tx, v)
	})
	if ent.IsConstraintError(err) {
		// A concurrent writer (PostgreSQL) took the uuid or a link first.
		return s.explainVariantConflict(ctx, v, err)
	}
	return err
}

// setVariantFields writes every mutable field of v, clearing absent ones.
func setVariantFields(m *ent.ProductVariantMutation, v *catalog.Variant) {
	m.SetUUID(v.UUID)
	m.SetProductID(v.ProductID)
	m.SetName(v.Name)
	m.SetCountryID(v.CountryID)
	setOrClearField(v.VariantCategoryID, m.SetProductVariantCategoryID, m.ClearProductVariantCategoryID)
	setOrClearField(v.PriceID, m.SetPriceID, m.ClearPriceID)
	setOrClearField(v.EditorProductID, m.SetEditorProductID, m.ClearEditorProductID)
	setOrClearField(v.Weight, m.SetWeight, m.ClearWeight)
	setOrClearField(v.Length, m.SetLength, m.ClearLength)
	setOrClearField(v.Width, m.SetWidth, m.ClearWidth)
	setOrClearField(v.Height, m.SetHeight, m.ClearHeight)
	setOrClearField(v.Description, m.SetDescription, m.ClearDescription)
	setOrClearField(v.CustomsCode, m.SetCustomsCode, m.ClearCustomsCode)
	setOrClearField(v.CustomsDescription, m.SetCustomsDescription, m.ClearCustomsDescription)
	setOrClearField(v.LongCustomsDescription, m.SetLongCustomsDescription, m.ClearLongCustomsDescription)
	setOrClearField(v.DefaultDPI, m.SetDefaultDpi, m.ClearDefaultDpi)
	setOrClearField(v.SEODetails, m.SetSeoDetails, m.ClearSeoDetails)
	setOrClearField(v.EcommerceTags, m.SetEcommerceTags, m.ClearEcommerceTags)
	setOrClearField(v.DefaultLocationID, m.SetDefaultLocationID, m.ClearDefaultLocationID)
	setPress(m, v.Press)
}

// setOrClearField is setOrClear for a mutation's setters, which return
// nothing.
func setOrClearField[T any](v *T, set func(T), clear func()) {
	if v == nil {
		clear()
	} else {
		set(*v)
	}
}

func insertLinks(ctx context.Context, tx *Tx, v *catalog.Variant) error {
	if len(v.EcommerceVariantIDs) == 0 {
		return nil
	}
	builders := make([]*ent.VariantLinkCreate, len(v.EcommerceVariantIDs))
	for i, id := range v.EcommerceVariantIDs {
		builders[i] = tx.VariantLink.Create().SetTeamID(v.TeamID).SetEcommerceVariantID(id).
			SetVariantID(v.ID).SetPosition(i)
	}
	return tx.VariantLink.CreateBulk(builders...).Exec(ctx)
}

// checkVariantUnique answers a conflict naming the field when another
// variant of the team holds v's uuid or one of its ecommerce variant ids.
func checkVariantUnique(ctx context.Context, client *ent.Client, v *catalog.Variant) error {
	other, err := client.ProductVariant.Query().
		Where(productvariant.TeamID(v.TeamID), productvariant.UUID(v.UUID), productvariant.IDNEQ(v.ID)).
		Select(productvariant.FieldID).First(ctx)
	if err == nil {
		return apierr.Conflict("uuid", "variant %d already has uuid %s", other.ID, v.UUID)
	}
	if !ent.IsNotFound(err) {
		return err
	}
	if len(v.EcommerceVariantIDs) == 0 {
		return nil
	}
	link, err := client.VariantLink.Query().
		Where(variantlink.TeamID(v.TeamID), variantlink.EcommerceVariantIDIn(v.EcommerceVariantIDs...),
			variantlink.VariantIDNEQ(v.ID)).
		First(ctx)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for i, id := range v.EcommerceVariantIDs {
		if id == link.EcommerceVariantID {
			return apierr.Conflict(fmt.Sprintf("ecommerce_variant_ids[%d]", i),
				"ecommerce variant id %q already belongs to variant %d", id, link.VariantID)
		}
	}
	return apierr.Conflict("ecommerce_variant_ids", "an ecommerce variant id already belongs to variant %d", link.VariantID)
}

// explainVariantConflict names the clash after a uniqueness violation.
func (s *Catalog) explainVariantConflict(ctx context.Context, v *catalog.Variant, cause error) error {
	if err := checkVariantUnique(ctx, s.db.read, v); err != nil {
		return err
	}
	return cause
}

// GetVariant returns the team's variant with its links.
func (s *Catalog) GetVariant(ctx context.Context, teamID, id int) (*catalog.Variant, error) {
	return getVariant(ctx, s.db.read, teamID, id)
}

func getVariant(ctx context.Context, client *ent.Client, teamID, id int) (*catalog.Variant, error) {
	row, err := client.ProductVariant.Query().Where(productvariant.TeamID(teamID), productvariant.ID(id)).
		WithLinks(orderLinks).Only(ctx)
	if err != nil {
		return nil, notFound(err, "product variant %d not found", id)
	}
	return variantFromRow(row), nil
}

func orderLinks(q *ent.VariantLinkQuery) { q.Order(ent.Asc(variantlink.FieldPosition)) }

// ListVariants returns a page of variants, newest first.
func (s *Catalog) ListVariants(ctx context.Context, q catalog.VariantQuery) ([]*catalog.Variant, bool, error) {
	query := s.db.read.ProductVariant.Query().Where(productvariant.TeamID(q.TeamID))
	if q.ProductID != nil {
		query = query.Where(productvariant.ProductID(*q.ProductID))
	}
	rows, err := query.Where(after[predicate.ProductVariant](q.After, productvariant.FieldUUID)).WithLinks(orderLinks).
		Order(ent.Desc(productvariant.FieldCreatedAt), ent.Desc(productvariant.FieldUUID)).
		Limit(q.PageSize + 1).All(ctx)
	if err != nil {
		return nil, false, err
	}
	page, more := cutPage(rows, q.PageSize, variantFromRow)
	return page, more, nil
}

// UpdateVariant changes the variant and replaces its links in one
// transaction.
func (s *Catalog) UpdateVariant(ctx context.Context, teamID, id int, apply func(*catalog.Variant) error) (*catalog.Variant, error) {
	var v *catalog.Variant
	err := s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		var err error
		if v, err = getVariant(ctx, tx.Client(), teamID, id); err != nil {
			return err
		}
		if err := apply(v); err != nil {
			return err
		}
		if err := checkVariantUnique(ctx, tx.Client(), v); err != nil {
			return err
		}
		if err := checkProfileOf(ctx, tx.Client(), v.TeamID, v.Press); err != nil {
			return err
		}
		u := tx.ProductVariant.UpdateOneID(v.ID)
		setVariantFields(u.Mutation(), v)
		row, err := u.Save(ctx)
		if err != nil {
			return err
		}
		v.UpdatedAt = row.UpdatedAt.UTC()
		if _, err := tx.VariantLink.Delete().Where(variantlink.VariantID(v.ID)).Exec(ctx); err != nil {
			return err
		}
		return insertLinks(ctx, tx, v)
	})
	if ent.IsConstraintError(err) {
		return nil, s.explainVariantConflict(ctx, v, err)
	}
	return v, err
}

// DeleteVariant removes the team's variant; its links go with it.
func (s *Catalog) DeleteVariant(ctx context.Context, teamID, id int) error {
	return s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		n, err := tx.ProductVariant.Delete().Where(productvariant.TeamID(teamID), productvariant.ID(id)).Exec(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return notFound(&ent.NotFoundError{}, "product variant %d not found", id)
		}
		return nil
	})
}

func variantFromRow(row *ent.ProductVariant) *catalog.Variant {
	v := &catalog.Variant{
		ID: row.ID, UUID: row.UUID, TeamID: row.TeamID, ProductID: row.ProductID, Name: row.Name,
		VariantCategoryID: row.ProductVariantCategoryID, PriceID: row.PriceID, EditorProductID: row.EditorProductID,
		Weight: row.Weight, Length: row.Length, Width: row.Width, Height: row.Height, Description: row.Description,
		CountryID: row.CountryID, CustomsCode: row.CustomsCode, CustomsDescription: row.CustomsDescription,
		LongCustomsDescription: row.LongCustomsDescription, DefaultDPI: row.DefaultDpi, SEODetails: row.SeoDetails,
		EcommerceTags: row.EcommerceTags, DefaultLocationID: row.DefaultLocationID,
		Press:     pressOf(row.OutputProfileUID, row.MinEffectivePpi, row.SafeMarginMm, row.CutContourSpot, row.AllowMissingGlyphs),
		CreatedAt: row.CreatedAt.UTC(), UpdatedAt: row.UpdatedAt.UTC(),
	}
	for _, l := range row.Edges.Links {
		v.EcommerceVariantIDs = append(v.EcommerceVariantIDs, l.EcommerceVariantID)
	}
	return v
}
