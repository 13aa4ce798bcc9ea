package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// OperatorToken is an operator's bearer token for the operator API. Only
// the SHA-256 of the token is stored; the token is shown once.
type OperatorToken struct{ ent.Schema }

// Mixin of the OperatorToken.
func (OperatorToken) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the OperatorToken.
func (OperatorToken) Fields() []ent.Field {
	return []ent.Field{
		field.Int("operator_id").Immutable(),
		// The first characters of the token, to recognise it in listings.
		field.String("prefix").Immutable(),
		field.Bytes("hash").Unique().Immutable().Sensitive(),
		field.Time("revoked_at").Optional().Nillable(),
	}
}

// Edges of the OperatorToken.
func (OperatorToken) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("operator", Operator.Type).Ref("tokens").Field("operator_id").Unique().Required().Immutable(),
	}
}

// Indexes of the OperatorToken.
func (OperatorToken) Indexes() []ent.Index {
	return []ent.Index{index.Fields("operator_id")}
}
