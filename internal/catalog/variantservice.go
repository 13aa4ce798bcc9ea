package catalog

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/country"
	"github.com/platen-print/platen/internal/fieldmask"
	"github.com/platen-print/platen/internal/pagination"
	"github.com/platen-print/platen/internal/press"
)

// variantFields are the variant fields a PUT may replace.
var variantFields = []string{"uuid", "name", "product_variant_category_id", "product_id", "price_id",
	"editor_product_id", "weight", "length", "width", "height", "description", "country_id", "customs_code",
	"customs_description", "long_customs_description", "default_dpi", "seo_details", "ecommerce_tags",
	"default_location_id", "ecommerce_variant_ids", press.FieldOutputProfileID, press.FieldMinEffectivePPI,
	press.FieldSafeMarginMM, press.FieldCutContourSpot, press.FieldAllowMissingGlyphs}

// nonNullVariantFields may not be null in an update.
var nonNullVariantFields = []string{"uuid", "name", "product_id", "country_id"}

// Limits of a variant's ecommerce_variant_ids.
const (
	maxEcommerceVariantIDs = 1000
	uuidLength             = 36
)

// variantInput is a create or update body, checked field by field.
type variantInput struct {
	UUID, Name           *string
	ProductID, CountryID *int32
	Ints                 map[string]*wrapperspb.Int32Value
	Unsigned             map[string]*wrapperspb.UInt32Value
	Texts                map[string]*wrapperspb.StringValue
	EcommerceVariantIDs  []string
	Press                press.Input
}

// variantBody is what the create and update bodies share: their optional
// fields, by the generated getters.
type variantBody interface {
	GetProductVariantCategoryId() *wrapperspb.Int32Value
	GetPriceId() *wrapperspb.Int32Value
	GetLength() *wrapperspb.Int32Value
	GetWidth() *wrapperspb.Int32Value
	GetHeight() *wrapperspb.Int32Value
	GetDefaultLocationId() *wrapperspb.Int32Value
	GetWeight() *wrapperspb.UInt32Value
	GetDefaultDpi() *wrapperspb.UInt32Value
	GetEditorProductId() *wrapperspb.StringValue
	GetDescription() *wrapperspb.StringValue
	GetCustomsCode() *wrapperspb.StringValue
	GetCustomsDescription() *wrapperspb.StringValue
	GetLongCustomsDescription() *wrapperspb.StringValue
	GetSeoDetails() *wrapperspb.StringValue
	GetEcommerceTags() *wrapperspb.StringValue
	GetEcommerceVariantIds() []string
	press.Body
}

// newVariantInput reads a body's optional fields; the caller sets the
// required ones, whose types differ between create and update.
func newVariantInput(req variantBody) *variantInput {
	return &variantInput{
		EcommerceVariantIDs: req.GetEcommerceVariantIds(),
		Press:               press.InputOf(req),
		Ints: map[string]*wrapperspb.Int32Value{
			"product_variant_category_id": req.GetProductVariantCategoryId(), "price_id": req.GetPriceId(),
			"length": req.GetLength(), "width": req.GetWidth(), "height": req.GetHeight(),
			"default_location_id": req.GetDefaultLocationId(),
		},
		Unsigned: map[string]*wrapperspb.UInt32Value{"weight": req.GetWeight(), "default_dpi": req.GetDefaultDpi()},
		Texts: map[string]*wrapperspb.StringValue{
			"editor_product_id": req.GetEditorProductId(), "description": req.GetDescription(),
			"customs_code": req.GetCustomsCode(), "customs_description": req.GetCustomsDescription(),
			"long_customs_description": req.GetLongCustomsDescription(), "seo_details": req.GetSeoDetails(),
			"ecommerce_tags": req.GetEcommerceTags(),
		},
	}
}

func createVariantInput(req *platenv1.CreateProductVariantRequest) *variantInput {
	in := newVariantInput(req)
	in.Name, in.ProductID, in.CountryID = &req.Name, req.ProductId, req.CountryId
	if req.Uuid != nil {
		in.UUID = &req.Uuid.Value
	}
	return in
}

func updateVariantInput(req *platenv1.UpdateProductVariantRequest) *variantInput {
	in := newVariantInput(req)
	in.UUID, in.Name, in.ProductID, in.CountryID = req.Uuid, req.Name, req.ProductId, req.CountryId
	return in
}

// present reports whether the body gave field a value (not null).
func (in *variantInput) present(field string) bool {
	switch field {
	case "uuid":
		return in.UUID != nil
	case "name":
		return in.Name != nil && *in.Name != ""
	case "product_id":
		return in.ProductID != nil
	case "country_id":
		return in.CountryID != nil
	case "ecommerce_variant_ids":
		return len(in.EcommerceVariantIDs) > 0
	}
	if set, ok := in.Press.Presence()[field]; ok {
		return set
	}
	return in.Ints[field] != nil || in.Unsigned[field] != nil || in.Texts[field] != nil
}

// nullField reports whether a required field came as null.
func (in *variantInput) nullField(field string) bool {
	switch field {
	case "uuid":
		return in.UUID == nil
	case "name":
		return in.Name == nil
	case "product_id":
		return in.ProductID == nil
	}
	return in.CountryID == nil
}

// presence is the set of fields a mask-less gRPC update replaces.
func (in *variantInput) presence() map[string]bool {
	set := make(map[string]bool, len(variantFields))
	for _, f := range variantFields {
		set[f] = in.present(f)
	}
	return set
}

// apply checks the named fields of in and copies them into v.
func (in *variantInput) apply(vs *apierr.Violations, v *Variant, fields []string) {
	for _, f := range fields {
		if in.Press.Apply(vs, &v.Press, f) {
			continue
		}
		switch f {
		case "uuid":
			if in.UUID != nil {
				v.UUID = checkUUID(vs, *in.UUID)
			}
		case "name":
			if in.Name != nil { // null is reported as such by the update
				v.Name = checkName(vs, *in.Name)
			}
		case "product_id":
			v.ProductID = deref(in.ProductID)
		case "country_id":
			if in.CountryID != nil {
				v.CountryID = checkCountry(vs, *in.CountryID)
			}
		case "ecommerce_variant_ids":
			v.EcommerceVariantIDs = checkEcommerceVariantIDs(vs, in.EcommerceVariantIDs)
		case "weight":
			v.Weight = unsigned64(in.Unsigned[f])
		case "default_dpi":
			v.DefaultDPI = optionalUnsigned(vs, f, in.Unsigned[f], 1, maxDPI)
		case "length", "width", "height":
			*v.dimension(f) = optionalInt(vs, f, in.Ints[f], 0, 1<<31-1)
		case "product_variant_category_id", "price_id", "default_location_id":
			*v.reference(f) = optionalInt(vs, f, in.Ints[f], 1, 1<<31-1)
		default:
			limit := maxTextLength
			if f == "editor_product_id" || f == "customs_code" {
				limit = maxNameLength
			}
			*v.text(f) = optionalText(vs, f, in.Texts[f], limit)
		}
	}
}

func (v *Variant) dimension(field string) **int {
	switch field {
	case "length":
		return &v.Length
	case "width":
		return &v.Width
	}
	return &v.Height
}

func (v *Variant) reference(field string) **int {
	switch field {
	case "product_variant_category_id":
		return &v.VariantCategoryID
	case "price_id":
		return &v.PriceID
	}
	return &v.DefaultLocationID
}

func (v *Variant) text(field string) **string {
	switch field {
	case "editor_product_id":
		return &v.EditorProductID
	case "description":
		return &v.Description
	case "customs_code":
		return &v.CustomsCode
	case "customs_description":
		return &v.CustomsDescription
	case "long_customs_description":
		return &v.LongCustomsDescription
	case "seo_details":
		return &v.SEODetails
	}
	return &v.EcommerceTags
}

// checkUUID accepts the canonical 36-character form only (RFC 9562's
// 8-4-4-4-12 hex digits), stored in lower case: UUIDs compare without case.
func checkUUID(vs *apierr.Violations, s string) string {
	if len(s) != uuidLength {
		vs.Add("uuid", "must be a UUID of %d characters such as 6f1c2a3e-8b7d-4c55-9a10-2b3c4d5e6f70, got %d characters", uuidLength, len(s))
		return s
	}
	if _, err := uuid.Parse(s); err != nil {
		vs.Add("uuid", "must be a UUID such as 6f1c2a3e-8b7d-4c55-9a10-2b3c4d5e6f70: %q is not", s)
	}
	return strings.ToLower(s)
}

func checkCountry(vs *apierr.Violations, code int32) int {
	if _, ok := country.Lookup(int(code)); !ok {
		vs.Add("country_id", "must be the ISO 3166-1 numeric code of a country (276 is Germany), got %d", code)
	}
	return int(code)
}

func checkEcommerceVariantIDs(vs *apierr.Violations, ids []string) []string {
	if len(ids) > maxEcommerceVariantIDs {
		vs.Add("ecommerce_variant_ids", "must hold at most %d ids, got %d", maxEcommerceVariantIDs, len(ids))
		return nil
	}
	seen := make(map[string]int, len(ids))
	for i, id := range ids {
		field := fmt.Sprintf("ecommerce_variant_ids[%d]", i)
		switch first, dup := seen[id]; {
		case id == "":
			vs.Add(field, "must not be empty")
		case utf8.RuneCountInString(id) > maxNameLength:
			vs.Add(field, "must be at most %d characters", maxNameLength)
		case dup:
			vs.Add(field, "repeats ecommerce_variant_ids[%d] (%q)", first, id)
		default:
			seen[id] = i
		}
	}
	return ids
}

func unsigned64(v *wrapperspb.UInt32Value) *int64 {
	if v == nil {
		return nil
	}
	n := int64(v.Value)
	return &n
}

func optionalUnsigned(vs *apierr.Violations, field string, v *wrapperspb.UInt32Value, lo, hi uint32) *int {
	if v == nil {
		return nil
	}
	if v.Value < lo || v.Value > hi {
		vs.Add(field, "must be from %d to %d, got %d", lo, hi, v.Value)
	}
	n := int(v.Value)
	return &n
}

// CreateProductVariant creates a variant of a product of the caller's team.
func (s *Service) CreateProductVariant(ctx context.Context, req *platenv1.CreateProductVariantRequest) (*platenv1.ProductVariant, error) {
	teamID, err := teamOf(ctx)
	if err != nil {
		return nil, err
	}
	in := createVariantInput(req)
	var vs apierr.Violations
	for _, f := range []string{"product_id", "country_id"} {
		if !in.present(f) {
			vs.Add(f, "is required")
		}
	}
	v := &Variant{TeamID: teamID, UUID: uuid.NewString()}
	in.apply(&vs, v, variantFields)
	if err := s.checkVariant(ctx, &vs, v); err != nil {
		return nil, err
	}
	if err := s.variants.CreateVariant(ctx, v); err != nil {
		return nil, err
	}
	return variantProto(v), nil
}

// checkVariant reports the recorded violations and a product_id that is
// not one of the team's products (400).
func (s *Service) checkVariant(ctx context.Context, vs *apierr.Violations, v *Variant) error {
	if err := vs.Err(); err != nil {
		return err
	}
	ok, err := s.variants.ProductExists(ctx, v.TeamID, v.ProductID)
	if err != nil {
		return err
	}
	if !ok {
		return apierr.Invalid("product_id", "no product with id %d in your catalogue", v.ProductID)
	}
	return nil
}

// GetProductVariant returns the variant details.
func (s *Service) GetProductVariant(ctx context.Context, req *platenv1.GetProductVariantRequest) (*platenv1.ProductVariant, error) {
	teamID, err := teamOf(ctx)
	if err != nil {
		return nil, err
	}
	v, err := s.variants.GetVariant(ctx, teamID, int(req.VariantId))
	if err != nil {
		return nil, err
	}
	return variantProto(v), nil
}

// ListProductVariants pages through the caller's variants, newest first.
func (s *Service) ListProductVariants(ctx context.Context, req *platenv1.ListProductVariantsRequest) (*platenv1.ListProductVariantsResponse, error) {
	teamID, err := teamOf(ctx)
	if err != nil {
		return nil, err
	}
	page, err := pagination.Parse(req.PageSize, req.PageToken)
	if err != nil {
		return nil, err
	}
	q := VariantQuery{TeamID: teamID, After: page.After, PageSize: page.Size}
	if req.ProductId != nil {
		id := int(*req.ProductId)
		q.ProductID = &id
	}
	list, more, err := s.variants.ListVariants(ctx, q)
	if err != nil {
		return nil, err
	}
	resp := &platenv1.ListProductVariantsResponse{}
	resp.ProductVariants, resp.NextPageToken = pagination.Answer(list, more, variantProto, func(v *Variant) pagination.Cursor {
		return pagination.Cursor{CreatedAt: v.CreatedAt, UID: v.UUID}
	})
	return resp, nil
}

// UpdateProductVariant replaces the fields present.
func (s *Service) UpdateProductVariant(ctx context.Context, req *platenv1.UpdateProductVariantRequest) (*platenv1.ProductVariant, error) {
	teamID, err := teamOf(ctx)
	if err != nil {
		return nil, err
	}
	in := updateVariantInput(req)
	fields, err := fieldmask.Fields(req.UpdateMask, variantFields, in.presence(), "variant_id")
	if err != nil {
		return nil, err
	}
	current, err := s.variants.GetVariant(ctx, teamID, int(req.VariantId))
	if err != nil {
		return nil, err
	}
	var vs apierr.Violations
	for _, f := range fields {
		if slices.Contains(nonNullVariantFields, f) && in.nullField(f) {
			vs.Add(f, "must not be null")
		}
	}
	next := *current
	in.apply(&vs, &next, fields)
	if err := s.checkVariant(ctx, &vs, &next); err != nil {
		return nil, err
	}
	v, err := s.variants.UpdateVariant(ctx, teamID, current.ID, func(v *Variant) error {
		next.ID, next.TeamID, next.CreatedAt = v.ID, v.TeamID, v.CreatedAt
		*v = next
		return nil
	})
	if err != nil {
		return nil, err
	}
	return variantProto(v), nil
}

// DeleteProductVariant removes a variant and its ecommerce variant links.
func (s *Service) DeleteProductVariant(ctx context.Context, req *platenv1.DeleteProductVariantRequest) (*platenv1.DeleteProductVariantResponse, error) {
	teamID, err := teamOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.variants.DeleteVariant(ctx, teamID, int(req.VariantId)); err != nil {
		return nil, err
	}
	return &platenv1.DeleteProductVariantResponse{Message: VariantDeletedMessage, VariantId: req.VariantId}, nil
}

func variantProto(v *Variant) *platenv1.ProductVariant {
	ids := v.EcommerceVariantIDs
	if ids == nil {
		ids = []string{}
	}
	out := &platenv1.ProductVariant{
		Id: int32(v.ID), Uuid: v.UUID, Name: v.Name, ProductVariantCategoryId: int32Value(v.VariantCategoryID),
		ProductId: int32(v.ProductID), PriceId: int32Value(v.PriceID), EditorProductId: stringValue(v.EditorProductID),
		Weight: uint32Value(v.Weight), Length: int32Value(v.Length), Width: int32Value(v.Width),
		Height: int32Value(v.Height), Description: stringValue(v.Description), CountryId: int32(v.CountryID),
		CustomsCode: stringValue(v.CustomsCode), CustomsDescription: stringValue(v.CustomsDescription),
		LongCustomsDescription: stringValue(v.LongCustomsDescription), DefaultDpi: uint32Value(v.DefaultDPI),
		SeoDetails: stringValue(v.SEODetails), EcommerceTags: stringValue(v.EcommerceTags),
		DefaultLocationId: int32Value(v.DefaultLocationID), EcommerceVariantIds: ids,
		CreatedAt: timestamppb.New(v.CreatedAt), UpdatedAt: timestamppb.New(v.UpdatedAt),
	}
	out.OutputProfileId, out.MinEffectivePpi, out.SafeMarginMm, out.CutContourSpot, out.AllowMissingGlyphs = v.Press.Wrappers()
	return out
}

func uint32Value[T int | int64](n *T) *wrapperspb.UInt32Value {
	if n == nil {
		return nil
	}
	return wrapperspb.UInt32(uint32(*n))
}
