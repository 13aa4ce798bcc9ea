package storage

import (
	"context"
	"fmt"
	"slices"

	"github.com/platen-print/platen/ent"
	"github.com/platen-print/platen/ent/predicate"
	"github.com/platen-print/platen/ent/printtemplate"
	"github.com/platen-print/platen/ent/productvariant"
	"github.com/platen-print/platen/ent/schema"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/templates"
)

// Templates keeps print templates and the variants they serve.
type Templates struct{ db *DB }

// Templates returns the print templates' store.
func (db *DB) Templates() *Templates { return &Templates{db: db} }

var _ templates.Store = (*Templates)(nil)

// CheckVariants refuses ids that name no variant of teamID.
func (s *Templates) CheckVariants(ctx context.Context, teamID int, ids []int, field string) error {
	if len(ids) == 0 {
		return nil
	}
	found, err := s.db.read.ProductVariant.Query().
		Where(productvariant.TeamID(teamID), productvariant.IDIn(ids...)).IDs(ctx)
	if err != nil {
		return err
	}
	known := make(map[int]bool, len(found))
	for _, id := range found {
		known[id] = true
	}
	var vs apierr.Violations
	for i, id := range ids {
		if !known[id] {
			vs.Add(fmt.Sprintf("%s[%d]", field, i), "names no product variant of team %d", teamID)
		}
	}
	return vs.Err()
}

// CreateTemplate stores t with its assignments.
func (s *Templates) CreateTemplate(ctx context.Context, t *templates.Template) error {
	return s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		if err := checkProfileOf(ctx, tx.Client(), t.TeamID, t.Press); err != nil {
			return err
		}
		create := tx.PrintTemplate.Create().SetUID(t.UID).SetTeamID(t.TeamID)
		row, err := setTemplate(create.Mutation(), t, create).AddVariantIDs(t.VariantIDs...).Save(ctx)
		if err != nil {
			return err
		}
		t.CreatedAt, t.UpdatedAt = row.CreatedAt.UTC(), row.UpdatedAt.UTC()
		return nil
	})
}

// setTemplate sets t's fields on a create or an update (m is its
// mutation) and returns the builder.
func setTemplate[B any](m *ent.PrintTemplateMutation, t *templates.Template, builder B) B {
	m.SetName(t.Name)
	m.SetSheetWidth(t.SheetWidth)
	m.SetSheetHeight(t.SheetHeight)
	m.SetMarginTop(t.MarginTop)
	m.SetMarginRight(t.MarginRight)
	m.SetMarginBottom(t.MarginBottom)
	m.SetMarginLeft(t.MarginLeft)
	m.SetGap(t.Gap)
	m.SetSlotBleed(t.SlotBleed)
	m.SetCropMarks(t.CropMarks)
	// Clear or set, never both: an UPDATE that assigns grid twice is
	// refused by PostgreSQL (SQLite keeps the last).
	if g := t.Grid; g != nil {
		m.SetGrid(&schema.TemplateGrid{Columns: g.Columns, Rows: g.Rows, SlotWidth: g.SlotWidth, SlotHeight: g.SlotHeight})
	} else {
		m.ClearGrid()
	}
	slots := make([]schema.TemplateSlot, len(t.Slots))
	for i, sl := range t.Slots {
		slots[i] = schema.TemplateSlot{X: sl.X, Y: sl.Y, Width: sl.Width, Height: sl.Height}
	}
	m.SetSlots(slots)
	setPress(m, t.Press)
	return builder
}

// GetTemplate returns the template uid with its variants.
func (s *Templates) GetTemplate(ctx context.Context, uid string) (*templates.Template, error) {
	row, err := s.db.read.PrintTemplate.Query().Where(printtemplate.UID(uid)).
		WithVariants(func(q *ent.ProductVariantQuery) { q.Select(productvariant.FieldID) }).Only(ctx)
	if err != nil {
		return nil, notFound(err, "print template %q not found", uid)
	}
	return templateFromRow(row), nil
}

// ListTemplates returns a page of templates, newest first.
func (s *Templates) ListTemplates(ctx context.Context, q templates.Query) ([]*templates.Template, bool, error) {
	query := s.db.read.PrintTemplate.Query()
	if q.TeamID != 0 {
		query = query.Where(printtemplate.TeamID(q.TeamID))
	}
	if q.VariantID != nil {
		query = query.Where(printtemplate.HasVariantsWith(productvariant.ID(*q.VariantID)))
	}
	rows, err := query.Where(after[predicate.PrintTemplate](q.After, printtemplate.FieldUID)).WithVariants(func(vq *ent.ProductVariantQuery) { vq.Select(productvariant.FieldID) }).
		Order(ent.Desc(printtemplate.FieldCreatedAt), ent.Desc(printtemplate.FieldUID)).
		Limit(q.PageSize + 1).All(ctx)
	if err != nil {
		return nil, false, err
	}
	page, more := cutPage(rows, q.PageSize, templateFromRow)
	return page, more, nil
}

// UpdateTemplate applies change to uid and stores the result.
func (s *Templates) UpdateTemplate(ctx context.Context, uid string, change func(*templates.Template) error) (*templates.Template, error) {
	var t *templates.Template
	err := s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		row, err := tx.PrintTemplate.Query().Where(printtemplate.UID(uid)).
			WithVariants(func(q *ent.ProductVariantQuery) { q.Select(productvariant.FieldID) }).Only(ctx)
		if err != nil {
			return notFound(err, "print template %q not found", uid)
		}
		t = templateFromRow(row)
		if err := change(t); err != nil {
			return err
		}
		if err := checkProfileOf(ctx, tx.Client(), t.TeamID, t.Press); err != nil {
			return err
		}
		update := tx.PrintTemplate.UpdateOneID(row.ID)
		saved, err := setTemplate(update.Mutation(), t, update).ClearVariants().AddVariantIDs(t.VariantIDs...).Save(ctx)
		if err != nil {
			return err
		}
		t.UpdatedAt = saved.UpdatedAt.UTC()
		return nil
	})
	return t, err
}

// DeleteTemplate removes uid; its assignments go with it.
func (s *Templates) DeleteTemplate(ctx context.Context, uid string) error {
	return s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		row, err := tx.PrintTemplate.Query().Where(printtemplate.UID(uid)).Only(ctx)
		if err != nil {
			return notFound(err, "print template %q not found", uid)
		}
		if err := tx.PrintTemplate.UpdateOneID(row.ID).ClearVariants().Exec(ctx); err != nil {
			return err
		}
		return tx.PrintTemplate.DeleteOneID(row.ID).Exec(ctx)
	})
}

func templateFromRow(r *ent.PrintTemplate) *templates.Template {
	t := &templates.Template{
		UID: r.UID, TeamID: r.TeamID, Name: r.Name, SheetWidth: r.SheetWidth, SheetHeight: r.SheetHeight,
		MarginTop: r.MarginTop, MarginRight: r.MarginRight, MarginBottom: r.MarginBottom, MarginLeft: r.MarginLeft,
		Gap: r.Gap, SlotBleed: r.SlotBleed, CropMarks: r.CropMarks,
		Press:     pressOf(r.OutputProfileUID, r.MinEffectivePpi, r.SafeMarginMm, r.CutContourSpot, r.AllowMissingGlyphs),
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), VariantIDs: []int{},
	}
	if g := r.Grid; g != nil && g.Columns > 0 {
		t.Grid = &templates.Grid{Columns: g.Columns, Rows: g.Rows, SlotWidth: g.SlotWidth, SlotHeight: g.SlotHeight}
	}
	for _, s := range r.Slots {
		t.Slots = append(t.Slots, templates.Slot{X: s.X, Y: s.Y, Width: s.Width, Height: s.Height})
	}
	for _, v := range r.Edges.Variants {
		t.VariantIDs = append(t.VariantIDs, v.ID)
	}
	slices.Sort(t.VariantIDs)
	return t
}
