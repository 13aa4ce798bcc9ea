package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Product is an item of a team's catalogue, in one category.
type Product struct{ ent.Schema }

// Mixin of the Product.
func (Product) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Product.
func (Product) Fields() []ent.Field {
	return []ent.Field{
		field.String("uuid").Unique().Immutable(),
		field.Int("team_id").Immutable(),
		field.Int("category_id"),
		field.String("name").NotEmpty(),
		field.String("code").Optional().Nillable(),
		field.Int("order_column"),
		field.Bool("active"),
		field.Text("description").Optional().Nillable(),
		field.Int("default_dpi").Optional().Nillable(),
		field.String("editor_category_id").Optional().Nillable(),
		field.Int("default_location_id").Optional().Nillable(),
	}
}

// Edges of the Product.
func (Product) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("category", ProductCategory.Type).Ref("products").Field("category_id").Unique().Required(),
		edge.To("variants", ProductVariant.Type),
	}
}

// Indexes of the Product.
func (Product) Indexes() []ent.Index {
	return []ent.Index{index.Fields("team_id", "created_at", "uuid")}
}
