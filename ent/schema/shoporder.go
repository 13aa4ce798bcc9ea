package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ShopOrder is a Family B order: design references and quantities, one
// print per line.
type ShopOrder struct{ ent.Schema }

// Mixin of the ShopOrder.
func (ShopOrder) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the ShopOrder.
func (ShopOrder) Fields() []ent.Field {
	return []ent.Field{
		field.Int("team_id").Immutable(),
		field.String("store_id").Immutable(),
		field.String("external_id").Immutable(),
		// Service-made, unique across the service, read out on the phone.
		field.String("reference_number").Unique().Immutable(),
		// SHA-256 of the lines as created, so that the same external_id
		// again tells "the same order" (200) from "other lines" (409).
		field.String("lines_hash").Immutable(),
	}
}

// Edges of the ShopOrder.
func (ShopOrder) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("prints", ShopPrint.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the ShopOrder.
func (ShopOrder) Indexes() []ent.Index {
	return []ent.Index{
		// Nothing is created twice: two racing creates meet here.
		index.Fields("store_id", "external_id").Unique(),
	}
}
