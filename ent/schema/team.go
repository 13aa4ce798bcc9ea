package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// Team is a client account: it owns stores, tokens and all of its data.
type Team struct{ ent.Schema }

// Mixin of the Team.
func (Team) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}, PressMixin{}} }

// Fields of the Team.
func (Team) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").NotEmpty().Unique(),
	}
}

// Edges of the Team.
func (Team) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("stores", Store.Type),
		edge.To("tokens", APIToken.Type),
		edge.To("operators", Operator.Type),
	}
}
