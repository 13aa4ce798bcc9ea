package catalog

import (
	"context"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/fieldmask"
)

// categoryFields are the category fields a PUT may replace.
var categoryFields = []string{"name", "parent_id", "description", "default_dpi", "editor_category_id", "default_location_id"}

func categoryUpdateFields(req *platenv1.UpdateProductCategoryRequest) ([]string, error) {
	return fieldmask.Fields(req.UpdateMask, categoryFields, map[string]bool{
		"name": req.Name != nil, "parent_id": req.ParentId != nil, "description": req.Description != nil,
		"default_dpi": req.DefaultDpi != nil, "editor_category_id": req.EditorCategoryId != nil,
		"default_location_id": req.DefaultLocationId != nil,
	}, "category_id")
}

// UpdateProductCategory replaces the fields present; a null parent_id makes
// the category top-level, and a parent that would make a cycle is refused.
func (s *Service) UpdateProductCategory(ctx context.Context, req *platenv1.UpdateProductCategoryRequest) (*platenv1.ProductCategory, error) {
	teamID, err := teamOf(ctx)
	if err != nil {
		return nil, err
	}
	fields, err := categoryUpdateFields(req)
	if err != nil {
		return nil, err
	}
	var vs apierr.Violations
	next := Category{TeamID: teamID}
	for _, f := range fields {
		switch f {
		case "name":
			next.Name = checkName(&vs, req.GetName())
		case "description":
			next.Description = optionalText(&vs, f, req.Description, maxTextLength)
		case "default_dpi":
			if req.DefaultDpi == nil {
				vs.Add(f, "must be a number from 1 to %d", maxDPI)
			} else {
				next.DefaultDPI = checkDPI(&vs, *req.DefaultDpi)
			}
		case "editor_category_id":
			next.EditorCategoryID = optionalText(&vs, f, req.EditorCategoryId, maxNameLength)
		case "default_location_id":
			next.DefaultLocationID = optionalText(&vs, f, req.DefaultLocationId, maxNameLength)
		case "parent_id":
			if req.ParentId != nil {
				if err := s.setParent(ctx, &next, req.ParentId.Value); err != nil {
					return nil, err
				}
			}
		}
	}
	if err := vs.Err(); err != nil {
		// A category the caller cannot see is 404 whatever the body says.
		if _, getErr := s.store.GetCategory(ctx, teamID, req.CategoryId); getErr != nil {
			return nil, getErr
		}
		return nil, err
	}
	c, err := s.store.UpdateCategory(ctx, teamID, req.CategoryId, func(c *Category) error {
		applyCategory(c, &next, fields)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return categoryProto(c), nil
}

func applyCategory(c, next *Category, fields []string) {
	for _, f := range fields {
		switch f {
		case "name":
			c.Name = next.Name
		case "parent_id":
			c.ParentID, c.ParentUID = next.ParentID, next.ParentUID
		case "description":
			c.Description = next.Description
		case "default_dpi":
			c.DefaultDPI = next.DefaultDPI
		case "editor_category_id":
			c.EditorCategoryID = next.EditorCategoryID
		case "default_location_id":
			c.DefaultLocationID = next.DefaultLocationID
		}
	}
}
