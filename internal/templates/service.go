package templates

import (
	"context"
	"maps"
	"slices"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/timestamppb"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/fieldmask"
	"github.com/platen-print/platen/internal/pagination"
	"github.com/platen-print/platen/internal/press"
)

// Service is the operator API's print templates (internal/operatorapi
// serves them). Staff act on every team's templates; a team's operator on
// that team's only (another team's is 404).
type Service struct {
	store Store
}

// NewService returns the service on store.
func NewService(store Store) *Service { return &Service{store: store} }

// CreatePrintTemplate creates a template of the caller's team, or of
// team_id (staff; a team's operator may name their own).
func (s *Service) CreatePrintTemplate(ctx context.Context, req *platenv1.CreatePrintTemplateRequest) (*platenv1.PrintTemplate, error) {
	p, err := auth.OperatorFromContext(ctx)
	if err != nil {
		return nil, err
	}
	team, err := p.OwningTeam(req.TeamId, "items the template lays out", "makes templates")
	if err != nil {
		return nil, err
	}
	t := &Template{
		UID: uuid.NewString(), TeamID: team, Name: req.Name,
		SheetWidth: req.SheetWidthMm, SheetHeight: req.SheetHeightMm,
		MarginTop: req.MarginTopMm, MarginRight: req.MarginRightMm, MarginBottom: req.MarginBottomMm, MarginLeft: req.MarginLeftMm,
		Gap: req.GapMm, SlotBleed: req.SlotBleedMm, Grid: gridFromProto(req.Grid), Slots: slotsFromProto(req.Slots),
		CropMarks: req.CropMarks, VariantIDs: ints(req.VariantIds),
	}
	var vs apierr.Violations
	press.InputOf(req).ApplyAll(&vs, &t.Press)
	if err := vs.Err(); err != nil {
		return nil, err
	}
	if err := t.Check(); err != nil {
		return nil, err
	}
	if err := s.store.CheckVariants(ctx, t.TeamID, t.VariantIDs, "variant_ids"); err != nil {
		return nil, err
	}
	if err := s.store.CreateTemplate(ctx, t); err != nil {
		return nil, err
	}
	return toProto(t), nil
}

// GetPrintTemplate returns a template the caller may see.
func (s *Service) GetPrintTemplate(ctx context.Context, req *platenv1.GetPrintTemplateRequest) (*platenv1.PrintTemplate, error) {
	t, err := s.visible(ctx, req.TemplateUid)
	if err != nil {
		return nil, err
	}
	return toProto(t), nil
}

// visible reads uid when the caller may see it; another team's is 404.
func (s *Service) visible(ctx context.Context, uid string) (*Template, error) {
	return auth.Visible(ctx, uid, s.store.GetTemplate, func(t *Template) int { return t.TeamID }, notFound)
}

// notFound is the answer for a template the caller may not see, the same
// as for one that does not exist.
func notFound(uid string) error { return apierr.NotFound("print template %q not found", uid) }

// ListPrintTemplates pages through the templates the caller may see.
func (s *Service) ListPrintTemplates(ctx context.Context, req *platenv1.ListPrintTemplatesRequest) (*platenv1.ListPrintTemplatesResponse, error) {
	p, err := auth.OperatorFromContext(ctx)
	if err != nil {
		return nil, err
	}
	page, err := pagination.Parse(req.PageSize, req.PageToken)
	if err != nil {
		return nil, err
	}
	q := Query{PageSize: page.Size, After: page.After}
	if q.TeamID, err = p.ListTeam(req.TeamId); err != nil {
		return nil, err
	}
	if req.VariantId != nil {
		v := int(*req.VariantId)
		q.VariantID = &v
	}
	list, more, err := s.store.ListTemplates(ctx, q)
	if err != nil {
		return nil, err
	}
	resp := &platenv1.ListPrintTemplatesResponse{}
	resp.PrintTemplates, resp.NextPageToken = pagination.Answer(list, more, toProto,
		func(t *Template) pagination.Cursor { return pagination.Cursor{CreatedAt: t.CreatedAt, UID: t.UID} })
	return resp, nil
}

// updatable are the fields an update may replace.
var updatable = []string{"name", "sheet_width_mm", "sheet_height_mm", "margin_top_mm", "margin_right_mm", "margin_bottom_mm",
	"margin_left_mm", "gap_mm", "slot_bleed_mm", "grid", "slots", "crop_marks", "variant_ids",
	press.FieldOutputProfileID, press.FieldMinEffectivePPI, press.FieldSafeMarginMM, press.FieldCutContourSpot,
	press.FieldAllowMissingGlyphs}

// UpdatePrintTemplate replaces the fields present; the result must pass
// the create rules.
func (s *Service) UpdatePrintTemplate(ctx context.Context, req *platenv1.UpdatePrintTemplateRequest) (*platenv1.PrintTemplate, error) {
	in := press.InputOf(req)
	presence := in.Presence()
	maps.Copy(presence, map[string]bool{
		"name": req.Name != nil, "sheet_width_mm": req.SheetWidthMm != nil, "sheet_height_mm": req.SheetHeightMm != nil,
		"margin_top_mm": req.MarginTopMm != nil, "margin_right_mm": req.MarginRightMm != nil,
		"margin_bottom_mm": req.MarginBottomMm != nil, "margin_left_mm": req.MarginLeftMm != nil,
		"gap_mm": req.GapMm != nil, "slot_bleed_mm": req.SlotBleedMm != nil, "grid": req.Grid != nil,
		"slots": len(req.Slots) > 0, "crop_marks": req.CropMarks != nil, "variant_ids": len(req.VariantIds) > 0,
	})
	fields, err := fieldmask.Fields(req.UpdateMask, updatable, presence, "template_uid")
	if err != nil {
		return nil, err
	}
	p, err := auth.OperatorFromContext(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.store.UpdateTemplate(ctx, req.TemplateUid, func(t *Template) error {
		if !p.SeesTeam(t.TeamID) {
			return notFound(req.TemplateUid)
		}
		var vs apierr.Violations
		for _, f := range fields {
			if !in.Apply(&vs, &t.Press, f) {
				applyField(t, f, req)
			}
		}
		if err := vs.Err(); err != nil {
			return err
		}
		if err := t.Check(); err != nil {
			return err
		}
		return s.store.CheckVariants(ctx, t.TeamID, t.VariantIDs, "variant_ids")
	})
	if err != nil {
		return nil, err
	}
	return toProto(t), nil
}

// applyField replaces one field of t from req; setting grid clears slots
// and the reverse.
func applyField(t *Template, field string, req *platenv1.UpdatePrintTemplateRequest) {
	floats := map[string]struct {
		dst *float64
		src *float64
	}{
		"sheet_width_mm": {&t.SheetWidth, req.SheetWidthMm}, "sheet_height_mm": {&t.SheetHeight, req.SheetHeightMm},
		"margin_top_mm": {&t.MarginTop, req.MarginTopMm}, "margin_right_mm": {&t.MarginRight, req.MarginRightMm},
		"margin_bottom_mm": {&t.MarginBottom, req.MarginBottomMm}, "margin_left_mm": {&t.MarginLeft, req.MarginLeftMm},
		"gap_mm": {&t.Gap, req.GapMm}, "slot_bleed_mm": {&t.SlotBleed, req.SlotBleedMm},
	}
	if f, ok := floats[field]; ok {
		*f.dst = 0
		if f.src != nil {
			*f.dst = *f.src
		}
		return
	}
	switch field {
	case "name":
		t.Name = req.GetName()
	case "grid":
		t.Grid = gridFromProto(req.Grid)
		if t.Grid != nil {
			t.Slots = nil
		}
	case "slots":
		t.Slots = slotsFromProto(req.Slots)
		if len(t.Slots) > 0 {
			t.Grid = nil
		}
	case "crop_marks":
		t.CropMarks = req.GetCropMarks()
	case "variant_ids":
		t.VariantIDs = ints(req.VariantIds)
	}
}

// DeletePrintTemplate removes a template and its assignments.
func (s *Service) DeletePrintTemplate(ctx context.Context, req *platenv1.DeletePrintTemplateRequest) (*platenv1.DeletePrintTemplateResponse, error) {
	if _, err := s.visible(ctx, req.TemplateUid); err != nil {
		return nil, err
	}
	if err := s.store.DeleteTemplate(ctx, req.TemplateUid); err != nil {
		return nil, err
	}
	return &platenv1.DeletePrintTemplateResponse{Message: "Print template successfully deleted", TemplateUid: req.TemplateUid}, nil
}

// AssignPrintTemplate adds and removes variants of the template's team.
func (s *Service) AssignPrintTemplate(ctx context.Context, req *platenv1.AssignPrintTemplateRequest) (*platenv1.PrintTemplate, error) {
	if len(req.AddVariantIds) == 0 && len(req.RemoveVariantIds) == 0 {
		return nil, apierr.Invalid("add_variant_ids", "give add_variant_ids, remove_variant_ids or both")
	}
	p, err := auth.OperatorFromContext(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.store.UpdateTemplate(ctx, req.TemplateUid, func(t *Template) error {
		if !p.SeesTeam(t.TeamID) {
			return notFound(req.TemplateUid)
		}
		if err := s.store.CheckVariants(ctx, t.TeamID, ints(req.AddVariantIds), "add_variant_ids"); err != nil {
			return err
		}
		remove := ints(req.RemoveVariantIds)
		kept := slices.DeleteFunc(t.VariantIDs, func(id int) bool { return slices.Contains(remove, id) })
		for _, id := range ints(req.AddVariantIds) {
			if !slices.Contains(kept, id) {
				kept = append(kept, id)
			}
		}
		t.VariantIDs = kept
		return nil
	})
	if err != nil {
		return nil, err
	}
	return toProto(t), nil
}

func toProto(t *Template) *platenv1.PrintTemplate {
	out := &platenv1.PrintTemplate{
		Uid: t.UID, TeamId: int32(t.TeamID), Name: t.Name, //nolint:gosec // ids fit
		SheetWidthMm: t.SheetWidth, SheetHeightMm: t.SheetHeight,
		MarginTopMm: t.MarginTop, MarginRightMm: t.MarginRight, MarginBottomMm: t.MarginBottom, MarginLeftMm: t.MarginLeft,
		GapMm: t.Gap, SlotBleedMm: t.SlotBleed, CropMarks: t.CropMarks,
		Slots: make([]*platenv1.PrintTemplateSlot, len(t.Slots)), VariantIds: make([]int32, len(t.VariantIDs)),
		CreatedAt: timestamppb.New(t.CreatedAt), UpdatedAt: timestamppb.New(t.UpdatedAt),
	}
	if g := t.Grid; g != nil {
		out.Grid = &platenv1.PrintTemplateGrid{Columns: int32(g.Columns), Rows: int32(g.Rows), SlotWidthMm: g.SlotWidth, SlotHeightMm: g.SlotHeight} //nolint:gosec // at most 100
	}
	for i, s := range t.Slots {
		out.Slots[i] = &platenv1.PrintTemplateSlot{XMm: s.X, YMm: s.Y, WidthMm: s.Width, HeightMm: s.Height}
	}
	for i, id := range t.VariantIDs {
		out.VariantIds[i] = int32(id) //nolint:gosec // ids fit
	}
	out.OutputProfileId, out.MinEffectivePpi, out.SafeMarginMm, out.CutContourSpot, out.AllowMissingGlyphs = t.Press.Wrappers()
	return out
}

func gridFromProto(g *platenv1.PrintTemplateGrid) *Grid {
	if g == nil {
		return nil
	}
	return &Grid{Columns: int(g.Columns), Rows: int(g.Rows), SlotWidth: g.SlotWidthMm, SlotHeight: g.SlotHeightMm}
}

func slotsFromProto(list []*platenv1.PrintTemplateSlot) []Slot {
	out := make([]Slot, len(list))
	for i, s := range list {
		out[i] = Slot{X: s.XMm, Y: s.YMm, Width: s.WidthMm, Height: s.HeightMm}
	}
	return out
}

func ints(list []int32) []int {
	out := make([]int, len(list))
	for i, v := range list {
		out[i] = int(v)
	}
	return out
}
