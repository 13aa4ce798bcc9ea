package catalog

import (
	"context"
	"errors"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/pagination"
)

// Service implements platenv1.CatalogServiceServer.
type Service struct {
	platenv1.UnimplementedCatalogServiceServer
	store    Store
	products ProductStore
	variants VariantStore
	settings SettingsStore
}

// Backend is all the persistence the catalogue needs.
type Backend interface {
	Store
	ProductStore
	VariantStore
	SettingsStore
}

// NewService returns the catalogue service backed by db.
func NewService(db Backend) *Service {
	return &Service{store: db, products: db, variants: db, settings: db}
}

// Limits of a category's fields.
const (
	maxNameLength = 255
	maxTextLength = 10_000
	maxDPI        = designdoc.MaxDPI
)

func teamOf(ctx context.Context) (int, error) {
	p, err := auth.FromContext(ctx)
	return p.TeamID, err
}

// CreateProductCategory creates a category of the caller's team.
func (s *Service) CreateProductCategory(ctx context.Context, req *platenv1.CreateProductCategoryRequest) (*platenv1.ProductCategory, error) {
	teamID, err := teamOf(ctx)
	if err != nil {
		return nil, err
	}
	var vs apierr.Violations
	c := &Category{
		TeamID:            teamID,
		Name:              checkName(&vs, req.Name),
		Description:       optionalText(&vs, "description", req.Description, maxTextLength),
		DefaultDPI:        DefaultDPI,
		EditorCategoryID:  optionalText(&vs, "editor_category_id", req.EditorCategoryId, maxNameLength),
		DefaultLocationID: optionalText(&vs, "default_location_id", req.DefaultLocationId, maxNameLength),
	}
	if req.DefaultDpi != nil {
		c.DefaultDPI = checkDPI(&vs, *req.DefaultDpi)
	}
	if err := vs.Err(); err != nil {
		return nil, err
	}
	if req.ParentId != nil {
		if err := s.setParent(ctx, c, req.ParentId.Value); err != nil {
			return nil, err
		}
	}
	if err := s.store.CreateCategory(ctx, c); err != nil {
		return nil, err
	}
	return categoryProto(c), nil
}

// setParent points c at the team's category ref; an unknown ref (or one of
// another team, which must look the same) is a bad parent_id.
func (s *Service) setParent(ctx context.Context, c *Category, ref string) error {
	id, uid, err := s.store.ResolveCategory(ctx, c.TeamID, ref)
	if errors.Is(err, apierr.ErrNotFound) {
		return apierr.Invalid("parent_id", "no category %q in your catalogue", ref)
	}
	if err != nil {
		return err
	}
	c.ParentID, c.ParentUID = &id, &uid
	return nil
}

// GetProductCategory returns the category details.
func (s *Service) GetProductCategory(ctx context.Context, req *platenv1.GetProductCategoryRequest) (*platenv1.ProductCategory, error) {
	teamID, err := teamOf(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.store.GetCategory(ctx, teamID, req.CategoryId)
	if err != nil {
		return nil, err
	}
	return categoryProto(c), nil
}

// ListProductCategories pages through the caller's categories, newest first.
func (s *Service) ListProductCategories(ctx context.Context, req *platenv1.ListProductCategoriesRequest) (*platenv1.ListProductCategoriesResponse, error) {
	teamID, err := teamOf(ctx)
	if err != nil {
		return nil, err
	}
	page, err := pagination.Parse(req.PageSize, req.PageToken)
	if err != nil {
		return nil, err
	}
	q := CategoryQuery{TeamID: teamID, After: page.After, PageSize: page.Size}
	if req.ParentId != "" {
		id, _, err := s.store.ResolveCategory(ctx, teamID, req.ParentId)
		if err != nil {
			return nil, err
		}
		q.ParentID = &id
	}
	list, more, err := s.store.ListCategories(ctx, q)
	if err != nil {
		return nil, err
	}
	resp := &platenv1.ListProductCategoriesResponse{}
	resp.ProductCategories, resp.NextPageToken = pagination.Answer(list, more, categoryProto, func(c *Category) pagination.Cursor {
		return pagination.Cursor{CreatedAt: c.CreatedAt, UID: c.UID}
	})
	return resp, nil
}

// DeleteProductCategory removes a category that has no children.
func (s *Service) DeleteProductCategory(ctx context.Context, req *platenv1.DeleteProductCategoryRequest) (*platenv1.DeleteProductCategoryResponse, error) {
	teamID, err := teamOf(ctx)
	if err != nil {
		return nil, err
	}
	uid, err := s.store.DeleteCategory(ctx, teamID, req.CategoryId)
	if err != nil {
		return nil, err
	}
	return &platenv1.DeleteProductCategoryResponse{Message: CategoryDeletedMessage, CategoryId: uid}, nil
}

func categoryProto(c *Category) *platenv1.ProductCategory {
	return &platenv1.ProductCategory{
		Id:                int32(c.ID),
		Uid:               c.UID,
		Name:              c.Name,
		ParentId:          stringValue(c.ParentUID),
		Description:       stringValue(c.Description),
		DefaultDpi:        int32(c.DefaultDPI),
		EditorCategoryId:  stringValue(c.EditorCategoryID),
		DefaultLocationId: stringValue(c.DefaultLocationID),
		CreatedAt:         timestamppb.New(c.CreatedAt),
		UpdatedAt:         timestamppb.New(c.UpdatedAt),
	}
}

func stringValue(s *string) *wrapperspb.StringValue {
	if s == nil {
		return nil
	}
	return wrapperspb.String(*s)
}

func checkName(vs *apierr.Violations, name string) string {
	switch {
	case name == "":
		vs.Add("name", "is required")
	case utf8.RuneCountInString(name) > maxNameLength:
		vs.Add("name", "must be at most %d characters", maxNameLength)
	}
	return name
}

func checkDPI(vs *apierr.Violations, dpi int32) int {
	if dpi < 1 || dpi > maxDPI {
		vs.Add("default_dpi", "must be from 1 to %d, got %d", maxDPI, dpi)
	}
	return int(dpi)
}

func optionalText(vs *apierr.Violations, field string, v *wrapperspb.StringValue, limit int) *string {
	if v == nil {
		return nil
	}
	if utf8.RuneCountInString(v.Value) > limit {
		vs.Add(field, "must be at most %d characters", limit)
	}
	s := v.Value
	return &s
}
