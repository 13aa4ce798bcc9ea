package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// APIToken is a bearer token of a team, optionally bound to one store.
// Only the SHA-256 of the token is stored; the token is shown once.
type APIToken struct{ ent.Schema }

// Mixin of the APIToken.
func (APIToken) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the APIToken.
func (APIToken) Fields() []ent.Field {
	return []ent.Field{
		field.Int("team_id").Immutable(),
		field.String("store_id").Optional().Nillable().Immutable(),
		field.String("name").Default(""),
		// The first characters of the token, to recognise it in listings.
		field.String("prefix").Immutable(),
		field.Bytes("hash").Unique().Immutable().Sensitive(),
		field.Time("revoked_at").Optional().Nillable(),
	}
}

// Edges of the APIToken.
func (APIToken) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("team", Team.Type).Ref("tokens").Field("team_id").Unique().Required().Immutable(),
	}
}

// Indexes of the APIToken.
func (APIToken) Indexes() []ent.Index {
	return []ent.Index{index.Fields("team_id")}
}
