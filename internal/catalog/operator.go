package catalog

import (
	"context"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/pagination"
)

// ListTeamVariants is the operator API's ListProductVariants: a page of
// one team's variants with their products, so that an operator can pick
// the variants a print template serves. Staff name the team; a team's
// operator lists their own (naming another is refused).
func (s *Service) ListTeamVariants(ctx context.Context, req *platenv1.OperatorServiceListProductVariantsRequest) (*platenv1.OperatorServiceListProductVariantsResponse, error) {
	p, err := auth.OperatorFromContext(ctx)
	if err != nil {
		return nil, err
	}
	if req.TeamId == nil && p.Staff {
		return nil, apierr.Invalid("team_id", "is required for staff: the team whose variants to list")
	}
	team, err := p.ListTeam(req.TeamId)
	if err != nil {
		return nil, err
	}
	page, err := pagination.Parse(req.PageSize, req.PageToken)
	if err != nil {
		return nil, err
	}
	list, more, err := s.variants.ListVariants(ctx, VariantQuery{TeamID: team, After: page.After, PageSize: page.Size})
	if err != nil {
		return nil, err
	}
	resp := &platenv1.OperatorServiceListProductVariantsResponse{}
	resp.ProductVariants, resp.NextPageToken = pagination.Answer(list, more, variantProto,
		func(v *Variant) pagination.Cursor { return pagination.Cursor{CreatedAt: v.CreatedAt, UID: v.UUID} })
	if resp.Products, err = s.productsOf(ctx, team, list); err != nil {
		return nil, err
	}
	return resp, nil
}

// productsOf reads the products of variants, once each: a page holds few
// products, and a variant's product is always its team's.
func (s *Service) productsOf(ctx context.Context, team int, variants []*Variant) ([]*platenv1.Product, error) {
	seen := map[int]bool{}
	var out []*platenv1.Product
	for _, v := range variants {
		if seen[v.ProductID] {
			continue
		}
		seen[v.ProductID] = true
		p, err := s.products.GetProduct(ctx, team, v.ProductID)
		if err != nil {
			return nil, err
		}
		out = append(out, productProto(p))
	}
	return out, nil
}
