package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
)

// WebhookCircuit is a store's webhook endpoint as the deliveries' circuit
// breaker sees it. It lives in the database, not in a process, so that
// every `platen serve` on one database counts the same failures and holds
// back the same paused endpoint. A store whose endpoint never failed has no
// row.
type WebhookCircuit struct{ ent.Schema }

// Fields of the WebhookCircuit.
func (WebhookCircuit) Fields() []ent.Field {
	return []ent.Field{
		// The store's id.
		field.String("id").NotEmpty().MaxLen(128).Immutable(),
		// Failed attempts in a row, any delivery of the store.
		field.Int("failures").Default(0),
		// While set, the endpoint is paused until then; once it has passed,
		// one delivery is tried (the probe) before the others go again.
		field.Time("open_until").Optional().Nillable(),
		// The pause's length, doubled by each failed probe.
		field.Int64("open_for_ms").Default(0),
		// A probe is under way until then (a probe that never reports, its
		// process gone, frees the turn when this passes).
		field.Time("probe_until").Optional().Nillable(),
	}
}
