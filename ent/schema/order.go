package schema

import (
	"encoding/json"

	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Order is a Family A order. Customer, addresses and shippings are stored
// as the JSON the domain layer encodes: they are read and written whole.
type Order struct{ ent.Schema }

// Mixin of the Order.
func (Order) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Order.
func (Order) Fields() []ent.Field {
	return []ent.Field{
		field.String("uid").Unique().Immutable(),
		field.Int("team_id").Immutable(),
		field.String("store_id").Immutable(),
		field.String("ecommerce_order_id").Immutable(),
		field.String("ecommerce_order_number").Optional().Nillable(),
		field.Float("total_price").Optional().Nillable(),
		field.Float("subtotal_price").Optional().Nillable(),
		field.String("currency_code").Optional().Nillable(),
		field.JSON("customer", json.RawMessage{}).Optional(),
		field.Text("note").Optional().Nillable(),
		field.JSON("addresses", json.RawMessage{}).Optional(),
		field.JSON("shippings", json.RawMessage{}).Optional(),
		field.Bool("create_print_files").Default(false),
		// Whether print files were asked for: create_print_files, or a later
		// POST …/print-files. Items added by a PUT then render too.
		field.Bool("print_files_requested").Default(false),
		// The request that created the order, when it carried an
		// Idempotency-Key (idempotency.Token): the key's record gets its
		// answer in a transaction after the order's, so a process that
		// stops between the two leaves the record without one, and the
		// client's retry must still find its order rather than a 409.
		field.String("idempotency_token").Optional().Nillable().Immutable().Sensitive(),
	}
}

// Edges of the Order.
func (Order) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("items", OrderItem.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the Order.
func (Order) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("store_id", "ecommerce_order_id").Unique(),
		// Listing pages by (created_at, uid), values the team knows, so that
		// a page token reveals nothing of other teams' orders.
		index.Fields("team_id", "created_at", "uid"),
	}
}
