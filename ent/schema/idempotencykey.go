package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// IdempotencyKey remembers the first answer to a POST sent with an
// Idempotency-Key header, so that a retry replays it for 24 hours.
type IdempotencyKey struct{ ent.Schema }

// Fields of the IdempotencyKey.
func (IdempotencyKey) Fields() []ent.Field {
	return []ent.Field{
		field.Int("team_id").Immutable(),
		field.String("key").Immutable(),
		// The run that wrote the record, random: a run that failed frees
		// its own record by it, even when it could not learn the id.
		field.String("attempt").Default("").Immutable(),
		field.String("method").Immutable(),
		// SHA-256 of the method and the request message.
		field.Bytes("request_hash").Immutable(),
		// Empty while the first request is still running.
		field.Bytes("response").Optional(),
		field.Int("http_code").Default(0),
		field.Time("created_at").Default(now).Immutable(),
	}
}

// Indexes of the IdempotencyKey.
func (IdempotencyKey) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("team_id", "key").Unique(),
		index.Fields("created_at"),
	}
}
