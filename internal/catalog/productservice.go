package catalog

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/fieldmask"
	"github.com/platen-print/platen/internal/pagination"
)

// productFields are the product fields a PUT may replace.
var productFields = []string{"category_id", "name", "code", "order_column", "active", "description",
	"default_dpi", "team_id", "editor_category_id", "default_location_id"}

// productInput is a create or update body, checked field by field.
type productInput struct {
	CategoryID, OrderColumn, TeamID *int32
	Name                            *string
	Active                          *bool
	Code, Description, EditorCat    *wrapperspb.StringValue
	DefaultDPI, DefaultLocation     *wrapperspb.Int32Value
}

// CreateProduct creates a product in a category of the caller's team.
func (s *Service) CreateProduct(ctx context.Context, req *platenv1.CreateProductRequest) (*platenv1.Product, error) {
	teamID, err := teamOf(ctx)
	if err != nil {
		return nil, err
	}
	in := productInput{CategoryID: req.CategoryId, OrderColumn: req.OrderColumn, TeamID: req.TeamId, Name: &req.Name,
		Active: req.Active, Code: req.Code, Description: req.Description, EditorCat: req.EditorCategoryId,
		DefaultDPI: req.DefaultDpi, DefaultLocation: req.DefaultLocationId}
	var vs apierr.Violations
	for _, f := range []string{"category_id", "order_column", "active", "team_id"} {
		if !in.set(f) {
			vs.Add(f, "is required")
		}
	}
	p := &Product{TeamID: teamID}
	in.apply(&vs, p, productFields)
	if err := s.checkProduct(ctx, &vs, p, teamID); err != nil {
		return nil, err
	}
	if err := s.products.CreateProduct(ctx, p); err != nil {
		return nil, err
	}
	return productProto(p), nil
}

// checkProduct reports the recorded violations, a team_id other than the
// caller's (403), and a category_id that is not one of the team's (400).
func (s *Service) checkProduct(ctx context.Context, vs *apierr.Violations, p *Product, teamID int) error {
	if err := vs.Err(); err != nil {
		return err
	}
	if p.TeamID != teamID {
		return apierr.PermissionDenied("team_id", "team_id %d is not your team", p.TeamID)
	}
	ok, err := s.products.CategoryExists(ctx, teamID, p.CategoryID)
	if err != nil {
		return err
	}
	if !ok {
		return apierr.Invalid("category_id", "no category with id %d in your catalogue", p.CategoryID)
	}
	return nil
}

func (in *productInput) set(field string) bool {
	switch field {
	case "category_id":
		return in.CategoryID != nil
	case "name":
		return in.Name != nil && *in.Name != ""
	case "order_column":
		return in.OrderColumn != nil
	case "active":
		return in.Active != nil
	case "team_id":
		return in.TeamID != nil
	}
	return false
}

// apply checks and copies fields of in into p.
func (in *productInput) apply(vs *apierr.Violations, p *Product, fields []string) {
	for _, f := range fields {
		switch f {
		case "category_id":
			p.CategoryID = deref(in.CategoryID)
		case "name":
			if in.Name != nil { // null is reported as such by the update
				p.Name = checkName(vs, *in.Name)
			}
		case "order_column":
			p.OrderColumn = deref(in.OrderColumn)
		case "active":
			p.Active = in.Active != nil && *in.Active
		case "team_id":
			p.TeamID = deref(in.TeamID)
		case "code":
			p.Code = optionalText(vs, f, in.Code, maxNameLength)
		case "description":
			p.Description = optionalText(vs, f, in.Description, maxTextLength)
		case "editor_category_id":
			p.EditorCategoryID = optionalText(vs, f, in.EditorCat, maxNameLength)
		case "default_dpi":
			p.DefaultDPI = optionalInt(vs, f, in.DefaultDPI, 1, maxDPI)
		case "default_location_id":
			p.DefaultLocationID = optionalInt(vs, f, in.DefaultLocation, 1, 1<<31-1)
		}
	}
}

func deref(n *int32) int {
	if n == nil {
		return 0
	}
	return int(*n)
}

func optionalInt(vs *apierr.Violations, field string, v *wrapperspb.Int32Value, lo, hi int32) *int {
	if v == nil {
		return nil
	}
	if v.Value < lo || v.Value > hi {
		vs.Add(field, "must be from %d to %d, got %d", lo, hi, v.Value)
	}
	n := int(v.Value)
	return &n
}

// GetProduct returns the product details.
func (s *Service) GetProduct(ctx context.Context, req *platenv1.GetProductRequest) (*platenv1.Product, error) {
	teamID, err := teamOf(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.products.GetProduct(ctx, teamID, int(req.ProductId))
	if err != nil {
		return nil, err
	}
	return productProto(p), nil
}

// ListProducts pages through the caller's products, newest first.
func (s *Service) ListProducts(ctx context.Context, req *platenv1.ListProductsRequest) (*platenv1.ListProductsResponse, error) {
	teamID, err := teamOf(ctx)
	if err != nil {
		return nil, err
	}
	page, err := pagination.Parse(req.PageSize, req.PageToken)
	if err != nil {
		return nil, err
	}
	q := ProductQuery{TeamID: teamID, After: page.After, PageSize: page.Size}
	if req.CategoryId != nil {
		id := int(*req.CategoryId)
		q.CategoryID = &id
	}
	list, more, err := s.products.ListProducts(ctx, q)
	if err != nil {
		return nil, err
	}
	resp := &platenv1.ListProductsResponse{}
	resp.Products, resp.NextPageToken = pagination.Answer(list, more, productProto, func(p *Product) pagination.Cursor {
		return pagination.Cursor{CreatedAt: p.CreatedAt, UID: p.UUID}
	})
	return resp, nil
}

// UpdateProduct replaces the fields present.
func (s *Service) UpdateProduct(ctx context.Context, req *platenv1.UpdateProductRequest) (*platenv1.Product, error) {
	teamID, err := teamOf(ctx)
	if err != nil {
		return nil, err
	}
	in := productInput{CategoryID: req.CategoryId, OrderColumn: req.OrderColumn, TeamID: req.TeamId, Name: req.Name,
		Active: req.Active, Code: req.Code, Description: req.Description, EditorCat: req.EditorCategoryId,
		DefaultDPI: req.DefaultDpi, DefaultLocation: req.DefaultLocationId}
	fields, err := fieldmask.Fields(req.UpdateMask, productFields, map[string]bool{
		"category_id": req.CategoryId != nil, "name": req.Name != nil, "code": req.Code != nil,
		"order_column": req.OrderColumn != nil, "active": req.Active != nil, "description": req.Description != nil,
		"default_dpi": req.DefaultDpi != nil, "team_id": req.TeamId != nil,
		"editor_category_id": req.EditorCategoryId != nil, "default_location_id": req.DefaultLocationId != nil,
	}, "product_id")
	if err != nil {
		return nil, err
	}
	current, err := s.products.GetProduct(ctx, teamID, int(req.ProductId))
	if err != nil {
		return nil, err
	}
	var vs apierr.Violations
	for _, f := range fields {
		if (f == "category_id" || f == "order_column" || f == "active" || f == "team_id") && !in.set(f) ||
			f == "name" && in.Name == nil {
			vs.Add(f, "must not be null")
		}
	}
	next := *current
	in.apply(&vs, &next, fields)
	if err := s.checkProduct(ctx, &vs, &next, teamID); err != nil {
		return nil, err
	}
	p, err := s.products.UpdateProduct(ctx, teamID, current.ID, func(p *Product) error {
		next.ID, next.UUID, next.CreatedAt = p.ID, p.UUID, p.CreatedAt
		*p = next
		return nil
	})
	if err != nil {
		return nil, err
	}
	return productProto(p), nil
}

// DeleteProduct removes a product.
func (s *Service) DeleteProduct(ctx context.Context, req *platenv1.DeleteProductRequest) (*platenv1.DeleteProductResponse, error) {
	teamID, err := teamOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.products.DeleteProduct(ctx, teamID, int(req.ProductId)); err != nil {
		return nil, err
	}
	return &platenv1.DeleteProductResponse{Message: ProductDeletedMessage, ProductId: req.ProductId}, nil
}

func productProto(p *Product) *platenv1.Product {
	return &platenv1.Product{
		Id: int32(p.ID), Uuid: p.UUID, CategoryId: int32(p.CategoryID), Name: p.Name,
		Code: stringValue(p.Code), OrderColumn: int32(p.OrderColumn), Active: p.Active,
		Description: stringValue(p.Description), DefaultDpi: int32Value(p.DefaultDPI), TeamId: int32(p.TeamID),
		EditorCategoryId: stringValue(p.EditorCategoryID), DefaultLocationId: int32Value(p.DefaultLocationID),
		CreatedAt: timestamppb.New(p.CreatedAt), UpdatedAt: timestamppb.New(p.UpdatedAt),
	}
}

func int32Value(n *int) *wrapperspb.Int32Value {
	if n == nil {
		return nil
	}
	return wrapperspb.Int32(int32(*n))
}
