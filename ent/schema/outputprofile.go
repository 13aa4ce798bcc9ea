package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"entgo.io/ent/schema/mixin"
)

// OutputProfile is a CMYK output ICC profile a team's operator added: the
// press condition its print files are made for (a PDF/X output intent),
// which variants, print templates and the team's default name by uid. The
// file is kept here so that every serve process can send it to the render
// processes.
type OutputProfile struct{ ent.Schema }

// Fields of the OutputProfile.
func (OutputProfile) Fields() []ent.Field {
	return []ent.Field{
		field.String("uid").Unique().Immutable(),
		field.Int("team_id").Immutable(),
		// The output intent's OutputConditionIdentifier.
		field.String("identifier").Immutable(),
		field.Text("condition").Default("").Immutable(),
		field.String("registry_name").Default("").Immutable(),
		// The profile's own description (its desc tag), read at upload.
		field.Text("description").Default("").Immutable(),
		field.Bytes("data").Immutable(),
		// SHA-256 of data, lowercase hex.
		field.String("sha256").Immutable(),
		field.Int("size").Immutable(),
		field.Time("created_at").Default(now).Immutable(),
	}
}

// Indexes of the OutputProfile.
func (OutputProfile) Indexes() []ent.Index {
	return []ent.Index{index.Fields("team_id", "created_at", "uid")}
}

// PressMixin adds the press settings a team's default, a product variant
// and a print template may set; each is null when unset (the next level's
// applies).
type PressMixin struct{ mixin.Schema }

// Fields of the PressMixin.
func (PressMixin) Fields() []ent.Field {
	return []ent.Field{
		// The uid of an OutputProfile of the same team.
		field.String("output_profile_uid").Optional().Nillable(),
		field.Int("min_effective_ppi").Optional().Nillable(),
		field.Float("safe_margin_mm").Optional().Nillable(),
		field.String("cut_contour_spot").Optional().Nillable(),
		// True leaves characters no font has out of text (a missing_glyphs
		// preflight warning) rather than failing the print. Nillable, so
		// that auto-migration adds it to existing tables as NULL.
		field.Bool("allow_missing_glyphs").Optional().Nillable(),
	}
}
