package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// BatchItem is one order item a batch order holds, so that the batches
// holding an item are found by its uid (batch_orders keeps its items as
// a list, in the order given). Written with its batch.
type BatchItem struct{ ent.Schema }

// Fields of the BatchItem.
func (BatchItem) Fields() []ent.Field {
	return []ent.Field{
		field.Int("batch_id").Immutable(),
		field.String("item_uid").Immutable(),
	}
}

// Indexes of the BatchItem.
func (BatchItem) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("item_uid", "batch_id"),
		index.Fields("batch_id"),
	}
}
