package press

import (
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/designdoc"
)

// Field names, as request and response bodies spell them.
const (
	FieldOutputProfileID    = "output_profile_id"
	FieldMinEffectivePPI    = "min_effective_ppi"
	FieldSafeMarginMM       = "safe_margin_mm"
	FieldCutContourSpot     = "cut_contour_spot"
	FieldAllowMissingGlyphs = "allow_missing_glyphs"
)

// Fields are the settings' fields, in the order bodies list them.
var Fields = []string{FieldOutputProfileID, FieldMinEffectivePPI, FieldSafeMarginMM, FieldCutContourSpot,
	FieldAllowMissingGlyphs}

// Bounds of the settings' values.
const (
	// MaxSafeMarginMM is a margin wider than any cut wanders by far.
	MaxSafeMarginMM = 100
)

// Input is a request body's settings as its wrapper fields give them: nil
// is null or absent (which clears the field, if the update names it).
type Input struct {
	OutputProfileID    *wrapperspb.StringValue
	MinEffectivePPI    *wrapperspb.UInt32Value
	SafeMarginMM       *wrapperspb.DoubleValue
	CutContourSpot     *wrapperspb.StringValue
	AllowMissingGlyphs *wrapperspb.BoolValue
}

// Body is what a request body with the settings' fields has, by the
// generated getters.
type Body interface {
	GetOutputProfileId() *wrapperspb.StringValue
	GetMinEffectivePpi() *wrapperspb.UInt32Value
	GetSafeMarginMm() *wrapperspb.DoubleValue
	GetCutContourSpot() *wrapperspb.StringValue
	GetAllowMissingGlyphs() *wrapperspb.BoolValue
}

// InputOf reads b's settings.
func InputOf(b Body) Input {
	return Input{OutputProfileID: b.GetOutputProfileId(), MinEffectivePPI: b.GetMinEffectivePpi(),
		SafeMarginMM: b.GetSafeMarginMm(), CutContourSpot: b.GetCutContourSpot(),
		AllowMissingGlyphs: b.GetAllowMissingGlyphs()}
}

// Presence reports, per field, whether the body gave it a value.
func (in Input) Presence() map[string]bool {
	return map[string]bool{
		FieldOutputProfileID: in.OutputProfileID != nil, FieldMinEffectivePPI: in.MinEffectivePPI != nil,
		FieldSafeMarginMM: in.SafeMarginMM != nil, FieldCutContourSpot: in.CutContourSpot != nil,
		FieldAllowMissingGlyphs: in.AllowMissingGlyphs != nil,
	}
}

// Apply checks field of in and copies it into s; it reports whether field
// is one of the settings'. Whether a named profile is the team's is the
// store's check.
func (in Input) Apply(vs *apierr.Violations, s *Settings, field string) bool {
	switch field {
	case FieldOutputProfileID:
		s.OutputProfileUID = nil
		if v := in.OutputProfileID; v != nil {
			if v.Value == "" {
				vs.Add(field, "must name an output profile of the team (its uid), or be null for the default")
			}
			s.OutputProfileUID = &v.Value
		}
	case FieldMinEffectivePPI:
		s.MinEffectivePPI = nil
		if v := in.MinEffectivePPI; v != nil {
			if v.Value < 1 || v.Value > designdoc.MaxDPI {
				vs.Add(field, "must be from 1 to %d, got %d", designdoc.MaxDPI, v.Value)
			}
			n := int(v.Value)
			s.MinEffectivePPI = &n
		}
	case FieldSafeMarginMM:
		s.SafeMarginMM = nil
		if v := in.SafeMarginMM; v != nil {
			if !(v.Value > 0 && v.Value <= MaxSafeMarginMM) {
				vs.Add(field, "must be above 0 and at most %d (millimetres), got %g", MaxSafeMarginMM, v.Value)
			}
			s.SafeMarginMM = &v.Value
		}
	case FieldCutContourSpot:
		s.CutContourSpot = nil
		if v := in.CutContourSpot; v != nil {
			if msg := checkSpot(v.Value); msg != "" {
				vs.Add(field, "%s", msg)
			}
			s.CutContourSpot = &v.Value
		}
	case FieldAllowMissingGlyphs:
		s.AllowMissingGlyphs = nil
		if v := in.AllowMissingGlyphs; v != nil {
			allow := v.Value
			s.AllowMissingGlyphs = &allow
		}
	default:
		return false
	}
	return true
}

// ApplyAll applies every field of in to s.
func (in Input) ApplyAll(vs *apierr.Violations, s *Settings) {
	for _, f := range Fields {
		in.Apply(vs, s, f)
	}
}

// checkSpot is what is wrong with a spot colour's name, or "": it becomes
// a PDF Separation's name, which RIPs match exactly, by the rules a
// design's spot() colours follow.
func checkSpot(name string) string {
	if name == "" {
		return "must name a spot colour (such as CutContour), or be null for CutContour"
	}
	return designdoc.CheckSpotName(name)
}

// Wrappers are s's fields as a response gives them: null when unset.
func (s Settings) Wrappers() (profile *wrapperspb.StringValue, ppi *wrapperspb.UInt32Value, margin *wrapperspb.DoubleValue,
	spot *wrapperspb.StringValue, allowMissing *wrapperspb.BoolValue) {
	if s.OutputProfileUID != nil {
		profile = wrapperspb.String(*s.OutputProfileUID)
	}
	if s.MinEffectivePPI != nil {
		ppi = wrapperspb.UInt32(uint32(*s.MinEffectivePPI)) //nolint:gosec // 1 to designdoc.MaxDPI
	}
	if s.SafeMarginMM != nil {
		margin = wrapperspb.Double(*s.SafeMarginMM)
	}
	if s.CutContourSpot != nil {
		spot = wrapperspb.String(*s.CutContourSpot)
	}
	if s.AllowMissingGlyphs != nil {
		allowMissing = wrapperspb.Bool(*s.AllowMissingGlyphs)
	}
	return profile, ppi, margin, spot, allowMissing
}
