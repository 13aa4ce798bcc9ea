package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
)

// ItemDesign is an order item's design document (its template_config), in
// a row of its own keyed by the item's id. It is written when the item is
// and when an update replaces it, never as the item's print moves: SQLite
// rewrites a whole row whenever an update changes its size, and an item's
// status going to processing, then to ready with its file, rewrote a
// megabyte of inline photo twice (2.2 MB of WAL and 30 ms each time).
type ItemDesign struct{ ent.Schema }

// Annotations of the ItemDesign.
func (ItemDesign) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Table("item_designs")}
}

// Fields of the ItemDesign.
func (ItemDesign) Fields() []ent.Field {
	noIncrement := false
	return []ent.Field{
		// The order item's id: one B-tree entry per design, no sequence.
		field.Int("id").Immutable().Annotations(entsql.Annotation{Incremental: &noIncrement}),
		field.Text("template_config"),
	}
}
