package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// PrintEvent is one step of a print's history, of either family: queued,
// rendering, ready, failed (with the reason), and what operators did
// (retried, flagged with a reason, cancelled), by whom. Rows are only
// added; a print's go with it only as far as its id is never shown again.
type PrintEvent struct{ ent.Schema }

// Fields of the PrintEvent.
func (PrintEvent) Fields() []ent.Field {
	return []ent.Field{
		// print_id is the order item's uid (Family A) or the shop print's.
		field.String("print_id").Immutable(),
		field.String("kind").Immutable(),
		field.Text("detail").Optional().Nillable().Immutable(),
		field.Int("operator_id").Optional().Nillable().Immutable(),
		field.Time("created_at").Default(now).Immutable(),
	}
}

// Indexes of the PrintEvent.
func (PrintEvent) Indexes() []ent.Index {
	return []ent.Index{index.Fields("print_id", "created_at")}
}
