package schema

import (
	"time"

	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// Store is a client's shop connection; its id is assigned by staff.
type Store struct{ ent.Schema }

// Mixin of the Store.
func (Store) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Store.
func (Store) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").NotEmpty().MaxLen(128).Immutable(),
		field.Int("team_id").Immutable(),
		field.String("webhook_url").Optional().Nillable(),
		// Signing secrets must be usable for HMAC, so they are kept as is.
		field.String("webhook_secret").Sensitive(),
		field.String("previous_webhook_secret").Optional().Nillable().Sensitive(),
		field.Time("previous_secret_expires_at").Optional().Nillable(),
		// Secrets rotated out before the previous one, still inside the day
		// each was promised when it was replaced.
		field.JSON("retired_webhook_secrets", []RetiredSecret{}).Optional().Sensitive(),
	}
}

// RetiredSecret is a webhook secret rotated out before the previous one:
// it signs deliveries until ExpiresAt.
type RetiredSecret struct {
	Secret    string    `json:"secret"`
	ExpiresAt time.Time `json:"expires_at"`
}

// Edges of the Store.
func (Store) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("team", Team.Type).Ref("stores").Field("team_id").Unique().Required().Immutable(),
	}
}
