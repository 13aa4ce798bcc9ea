package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// VariantLink maps one of the client's e-commerce variant ids to the
// variant whose print settings its order items use: a variant's
// ecommerce_variant_ids, one row each, unique within the team.
type VariantLink struct{ ent.Schema }

// Fields of the VariantLink.
func (VariantLink) Fields() []ent.Field {
	return []ent.Field{
		field.Int("team_id").Immutable(),
		field.String("ecommerce_variant_id").Immutable(),
		field.Int("variant_id").Immutable(),
		// Position in the variant's list, which answers keep.
		field.Int("position"),
	}
}

// Edges of the VariantLink.
func (VariantLink) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("variant", ProductVariant.Type).Ref("links").Field("variant_id").Unique().Required().Immutable(),
	}
}

// Indexes of the VariantLink.
func (VariantLink) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("team_id", "ecommerce_variant_id").Unique(),
		index.Fields("variant_id", "position"),
	}
}
