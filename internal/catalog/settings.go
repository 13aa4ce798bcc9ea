package catalog

import (
	"context"
	"errors"

	"google.golang.org/protobuf/types/known/wrapperspb"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/press"
	"github.com/platen-print/platen/internal/render"
)

// Where a resolved DPI came from, in the order they are tried.
const (
	DPIFromDesign   = "design"
	DPIFromVariant  = "variant"
	DPIFromProduct  = "product"
	DPIFromCategory = "category"
	DPIFromDefault  = "default"
)

// PrintSettings is what one render of an item or a design uses.
type PrintSettings struct {
	// Variant is the catalogue chain the item maps to; nil when no variant
	// lists its ecommerce_variant_id.
	Variant   *VariantChain
	DPI       int
	DPISource string
}

// VariantChain is a variant with the DPI settings of its product and
// category, everything the DPI rule reads.
type VariantChain struct {
	VariantID, ProductID, CategoryID int
	VariantDPI, ProductDPI           *int
	CategoryDPI                      int
	// Press are the variant's press settings.
	Press press.Settings
}

// SettingsStore reads what print settings are resolved from.
type SettingsStore interface {
	// VariantChain returns the chain of the team's variant whose
	// ecommerce_variant_ids hold id, or apierr.ErrNotFound.
	VariantChain(ctx context.Context, teamID int, ecommerceVariantID string) (*VariantChain, error)
	// OrderItemDesign returns the template_config and ecommerce_variant_id
	// of an order item the principal can see, or apierr.ErrNotFound.
	OrderItemDesign(ctx context.Context, p auth.Principal, itemUID string) (templateConfig, ecommerceVariantID string, err error)
	// DesignVersionConfig returns the template_config of the team's design
	// version, or apierr.ErrNotFound.
	DesignVersionConfig(ctx context.Context, teamID int, versionID string) (string, error)
	// TeamPress returns the team's default press settings.
	TeamPress(ctx context.Context, teamID int) (press.Settings, error)
}

// Resolver resolves print settings; the renderer and the API share it.
type Resolver struct{ store SettingsStore }

// NewResolver returns a resolver reading from store.
func NewResolver(store SettingsStore) Resolver { return Resolver{store: store} }

// Resolve returns the settings for a design document sold under
// ecommerceVariantID (empty for none, as for a Family B line): the variant
// that lists the id, and the DPI by the API's rule: the design's own
// dpi, else the variant's, the product's, the category's default_dpi, else
// 300.
func (r Resolver) Resolve(ctx context.Context, teamID int, ecommerceVariantID string, doc []byte) (PrintSettings, error) {
	var chain *VariantChain
	if ecommerceVariantID != "" {
		c, err := r.store.VariantChain(ctx, teamID, ecommerceVariantID)
		switch {
		case err == nil:
			chain = c
		case !errors.Is(err, apierr.ErrNotFound):
			return PrintSettings{}, err
		}
	}
	return settingsFor(chain, doc), nil
}

// settingsFor applies the DPI rule.
func settingsFor(chain *VariantChain, doc []byte) PrintSettings {
	s := PrintSettings{Variant: chain, DPI: DefaultDPI, DPISource: DPIFromDefault}
	if dpi, ok := designdoc.DeclaredDPI(doc); ok {
		s.DPI, s.DPISource = dpi, DPIFromDesign
		return s
	}
	if chain == nil {
		return s
	}
	switch {
	case chain.VariantDPI != nil:
		s.DPI, s.DPISource = *chain.VariantDPI, DPIFromVariant
	case chain.ProductDPI != nil:
		s.DPI, s.DPISource = *chain.ProductDPI, DPIFromProduct
	default:
		s.DPI, s.DPISource = chain.CategoryDPI, DPIFromCategory
	}
	return s
}

// GetPrintSettings answers the settings of an order item or a design
// version.
func (s *Service) GetPrintSettings(ctx context.Context, req *platenv1.GetPrintSettingsRequest) (*platenv1.PrintSettings, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	config, variantID, err := s.printSubject(ctx, p, req)
	if err != nil {
		return nil, err
	}
	doc, err := designdoc.Decode(config)
	if err != nil {
		return nil, err // stored documents were checked on the way in
	}
	settings, err := NewResolver(s.settings).Resolve(ctx, p.TeamID, variantID, doc)
	if err != nil {
		return nil, err
	}
	team, err := s.settings.TeamPress(ctx, p.TeamID)
	if err != nil {
		return nil, err
	}
	out := settingsProto(settings)
	var level press.Settings
	if settings.Variant != nil {
		level = settings.Variant.Press
	}
	pressProto(out, level.Over(team))
	return out, nil
}

// pressProto sets the effective press settings of out, as renders resolve
// them (press.Resolver).
func pressProto(out *platenv1.PrintSettings, s press.Settings) {
	var spot *wrapperspb.StringValue
	out.OutputProfileId, out.MinEffectivePpi, out.SafeMarginMm, spot, out.AllowMissingGlyphs = s.Wrappers()
	out.CutContourSpot = render.DefaultCutSpot
	if spot != nil {
		out.CutContourSpot = spot.Value
	}
}

// printSubject loads the design document and e-commerce variant id the
// request names.
func (s *Service) printSubject(ctx context.Context, p auth.Principal, req *platenv1.GetPrintSettingsRequest) (config, variantID string, err error) {
	switch {
	case req.OrderItemUid != "" && req.DesignVersionId != "":
		return "", "", apierr.Invalid("design_version_id", "give order_item_uid or design_version_id, not both")
	case req.OrderItemUid != "":
		if req.EcommerceVariantId != "" {
			return "", "", apierr.Invalid("ecommerce_variant_id", "applies to design_version_id only: an order item has its own")
		}
		return s.settings.OrderItemDesign(ctx, p, req.OrderItemUid)
	case req.DesignVersionId != "":
		config, err := s.settings.DesignVersionConfig(ctx, p.TeamID, req.DesignVersionId)
		return config, req.EcommerceVariantId, err
	}
	return "", "", apierr.Invalid("order_item_uid", "is required: name an order item (or a design_version_id)")
}

func settingsProto(s PrintSettings) *platenv1.PrintSettings {
	out := &platenv1.PrintSettings{Dpi: int32(s.DPI), DpiSource: s.DPISource}
	if c := s.Variant; c != nil {
		out.ProductVariantId = wrapperspb.Int32(int32(c.VariantID))
		out.ProductId = wrapperspb.Int32(int32(c.ProductID))
		out.CategoryId = wrapperspb.Int32(int32(c.CategoryID))
	}
	return out
}
