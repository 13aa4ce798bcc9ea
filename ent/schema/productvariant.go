package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ProductVariant is a printable variant of a product, with its print
// settings. Its uuid is unique within the team.
type ProductVariant struct{ ent.Schema }

// Mixin of the ProductVariant.
func (ProductVariant) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}, PressMixin{}} }

// Fields of the ProductVariant.
func (ProductVariant) Fields() []ent.Field {
	return []ent.Field{
		field.String("uuid"),
		field.Int("team_id").Immutable(),
		field.Int("product_id"),
		field.String("name").NotEmpty(),
		field.Int("product_variant_category_id").Optional().Nillable(),
		field.Int("price_id").Optional().Nillable(),
		field.String("editor_product_id").Optional().Nillable(),
		field.Int64("weight").Optional().Nillable(),
		field.Int("length").Optional().Nillable(),
		field.Int("width").Optional().Nillable(),
		field.Int("height").Optional().Nillable(),
		field.Text("description").Optional().Nillable(),
		field.Int("country_id"),
		field.String("customs_code").Optional().Nillable(),
		field.Text("customs_description").Optional().Nillable(),
		field.Text("long_customs_description").Optional().Nillable(),
		field.Int("default_dpi").Optional().Nillable(),
		field.Text("seo_details").Optional().Nillable(),
		field.Text("ecommerce_tags").Optional().Nillable(),
		field.Int("default_location_id").Optional().Nillable(),
	}
}

// Edges of the ProductVariant.
func (ProductVariant) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("product", Product.Type).Ref("variants").Field("product_id").Unique().Required(),
		edge.To("links", VariantLink.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.From("print_templates", PrintTemplate.Type).Ref("variants"),
	}
}

// Indexes of the ProductVariant.
func (ProductVariant) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("team_id", "uuid").Unique(),
		index.Fields("team_id", "created_at", "uuid"),
	}
}
