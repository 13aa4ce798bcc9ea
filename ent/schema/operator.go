package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// Operator is a person of the print shop who works in the operator panel
// and the operator API: staff see every team, a team's operator only that
// team. Only a slow hash of the password is stored.
type Operator struct{ ent.Schema }

// Mixin of the Operator.
func (Operator) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Operator.
func (Operator) Fields() []ent.Field {
	return []ent.Field{
		// Stored in lower case: e-mail addresses compare without case.
		field.String("email").NotEmpty().Unique(),
		field.String("name").Default(""),
		field.Bool("staff").Default(false).Immutable(),
		// The operator's team; none for staff.
		field.Int("team_id").Optional().Nillable().Immutable(),
		field.String("password_hash").Sensitive(),
	}
}

// Edges of the Operator.
func (Operator) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("team", Team.Type).Ref("operators").Field("team_id").Unique().Immutable(),
		edge.To("tokens", OperatorToken.Type),
	}
}
