package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// PrintTemplate is a press sheet that batches of a team's items are laid
// out on: its size and margins, a grid of slots or explicit ones, and the
// product variants it serves. Lengths are in millimetres.
type PrintTemplate struct{ ent.Schema }

// TemplateGrid is a grid of equal slots; a slot size of 0 divides the
// printable area evenly.
type TemplateGrid struct {
	Columns    int     `json:"columns"`
	Rows       int     `json:"rows"`
	SlotWidth  float64 `json:"slot_width"`
	SlotHeight float64 `json:"slot_height"`
}

// TemplateSlot is an explicit slot, from the sheet's top-left corner.
type TemplateSlot struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// Mixin of the PrintTemplate.
func (PrintTemplate) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}, PressMixin{}} }

// Fields of the PrintTemplate.
func (PrintTemplate) Fields() []ent.Field {
	return []ent.Field{
		field.String("uid").Unique().Immutable(),
		field.Int("team_id").Immutable(),
		field.String("name"),
		field.Float("sheet_width"),
		field.Float("sheet_height"),
		field.Float("margin_top"),
		field.Float("margin_right"),
		field.Float("margin_bottom"),
		field.Float("margin_left"),
		field.Float("gap"),
		field.Float("slot_bleed").Default(0),
		field.JSON("grid", &TemplateGrid{}).Optional(),
		field.JSON("slots", []TemplateSlot{}).Optional(),
		field.Bool("crop_marks").Default(false),
	}
}

// Edges of the PrintTemplate.
func (PrintTemplate) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("variants", ProductVariant.Type),
	}
}

// Indexes of the PrintTemplate.
func (PrintTemplate) Indexes() []ent.Index {
	return []ent.Index{index.Fields("team_id", "created_at")}
}
