package storage

import (
	"context"

	"github.com/platen-print/platen/ent"
	"github.com/platen-print/platen/ent/designversion"
	"github.com/platen-print/platen/ent/orderitem"
	"github.com/platen-print/platen/ent/variantlink"
	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/catalog"
	"github.com/platen-print/platen/internal/press"
)

var _ catalog.SettingsStore = (*Catalog)(nil)

// VariantChain returns the variant listing ecommerceVariantID with its
// product's and category's DPI.
func (s *Catalog) VariantChain(ctx context.Context, teamID int, ecommerceVariantID string) (*catalog.VariantChain, error) {
	link, err := s.db.read.VariantLink.Query().
		Where(variantlink.TeamID(teamID), variantlink.EcommerceVariantID(ecommerceVariantID)).
		WithVariant(func(q *ent.ProductVariantQuery) {
			q.WithProduct(func(q *ent.ProductQuery) { q.WithCategory() })
		}).Only(ctx)
	if err != nil {
		return nil, notFound(err, "no variant lists ecommerce variant id %q", ecommerceVariantID)
	}
	v := link.Edges.Variant
	p := v.Edges.Product
	return &catalog.VariantChain{
		VariantID: v.ID, ProductID: p.ID, CategoryID: p.CategoryID,
		VariantDPI: v.DefaultDpi, ProductDPI: p.DefaultDpi, CategoryDPI: p.Edges.Category.DefaultDpi,
		Press: pressOf(v.OutputProfileUID, v.MinEffectivePpi, v.SafeMarginMm, v.CutContourSpot, v.AllowMissingGlyphs),
	}, nil
}

// OrderItemDesign returns an order item's design document and variant id.
func (s *Catalog) OrderItemDesign(ctx context.Context, p auth.Principal, itemUID string) (string, string, error) {
	query := s.db.read.OrderItem.Query().Where(orderitem.UID(itemUID), orderitem.TeamID(p.TeamID))
	if p.StoreID != "" {
		query = query.Where(orderitem.StoreID(p.StoreID))
	}
	row, err := query.Select(orderitem.FieldEcommerceVariantID).Only(ctx)
	if err != nil {
		return "", "", notFound(err, "order item %q not found", itemUID)
	}
	design, err := itemDesign(ctx, s.db.read.ItemDesign, row.ID)
	if err != nil {
		return "", "", notFound(err, "order item %q not found", itemUID)
	}
	return design, row.EcommerceVariantID, nil
}

// TeamPress returns the team's default press settings.
func (s *Catalog) TeamPress(ctx context.Context, teamID int) (press.Settings, error) {
	return teamSettings(ctx, s.db.read, teamID)
}

// DesignVersionConfig returns a design version's document.
func (s *Catalog) DesignVersionConfig(ctx context.Context, teamID int, versionID string) (string, error) {
	row, err := s.db.read.DesignVersion.Query().
		Where(designversion.TeamID(teamID), designversion.VersionID(versionID)).
		Select(designversion.FieldTemplateConfig).Only(ctx)
	if err != nil {
		return "", notFound(err, "design version %q not found", versionID)
	}
	return row.TemplateConfig, nil
}
