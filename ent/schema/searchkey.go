package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// SearchKey is one text an operator can find a print by (a reference, a
// customer's e-mail or name), folded to lower case without accents, so
// that a prefix of it, in any case, finds the print. A key names an
// order (Family A's orders, Family B's shop orders) and, when it is an
// item's own reference, the item or shop print; it is written in the
// transaction that writes what it names.
type SearchKey struct{ ent.Schema }

// Fields of the SearchKey.
func (SearchKey) Fields() []ent.Field {
	return []ent.Field{
		// "A" (order_id is orders.id, item_id order_items.id) or "B"
		// (shop_orders.id, shop_prints.id).
		field.String("family").Immutable(),
		field.Int("order_id").Immutable(),
		// The item the key is a reference of; none for the order's own.
		field.Int("item_id").Optional().Nillable().Immutable(),
		field.String("key").Immutable(),
	}
}

// Indexes of the SearchKey.
func (SearchKey) Indexes() []ent.Index {
	return []ent.Index{
		// A prefix is a range of keys. PostgreSQL compares the range by
		// bytes (~>=~, ~<~), which only the pattern operator class
		// indexes under a database's language collation; SQLite compares
		// bytes already.
		index.Fields("key").Annotations(entsql.OpClass("text_pattern_ops")),
		// An order's keys, to replace them. Not family first: SQLite would
		// then take family = ? for the search's best index over the key's
		// range, and walk half the keys.
		index.Fields("order_id", "family"),
	}
}
