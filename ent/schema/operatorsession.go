package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// OperatorSession is a signed-in operator panel session: only the SHA-256
// of its cookie is stored, and it ends at expires_at or at sign-out.
type OperatorSession struct{ ent.Schema }

// Fields of the OperatorSession.
func (OperatorSession) Fields() []ent.Field {
	return []ent.Field{
		field.Bytes("token_hash").Unique().Immutable().Sensitive(),
		field.Int("operator_id").Immutable(),
		field.Time("expires_at").Immutable(),
		field.Time("created_at").Default(now).Immutable(),
	}
}

// Indexes of the OperatorSession.
func (OperatorSession) Indexes() []ent.Index {
	return []ent.Index{index.Fields("expires_at")}
}
