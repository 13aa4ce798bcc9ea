package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ProductCategory is a node of a team's catalogue tree. Paths and parent_id
// name it by uid; products refer to its integer id.
type ProductCategory struct{ ent.Schema }

// Mixin of the ProductCategory.
func (ProductCategory) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the ProductCategory.
func (ProductCategory) Fields() []ent.Field {
	return []ent.Field{
		field.String("uid").Unique().Immutable(),
		field.Int("team_id").Immutable(),
		field.String("name").NotEmpty(),
		field.Int("parent_id").Optional().Nillable(),
		field.Text("description").Optional().Nillable(),
		field.Int("default_dpi").Default(300),
		field.String("editor_category_id").Optional().Nillable(),
		field.String("default_location_id").Optional().Nillable(),
	}
}

// Edges of the ProductCategory.
func (ProductCategory) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("children", ProductCategory.Type).From("parent").Field("parent_id").Unique(),
		edge.To("products", Product.Type),
	}
}

// Indexes of the ProductCategory.
func (ProductCategory) Indexes() []ent.Index {
	return []ent.Index{index.Fields("team_id", "created_at", "uid")}
}
