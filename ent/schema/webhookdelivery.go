package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// WebhookDelivery is one event for a store's endpoint: written in the same
// transaction as the change it reports, with the exact bytes every attempt
// sends, and the log of its attempts.
type WebhookDelivery struct{ ent.Schema }

// Mixin of the WebhookDelivery.
func (WebhookDelivery) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the WebhookDelivery.
func (WebhookDelivery) Fields() []ent.Field {
	return []ent.Field{
		// The Platen-Delivery and webhook-id header, the same on every retry.
		field.String("uid").Unique().Immutable(),
		field.Int("team_id").Immutable(),
		field.String("store_id").Immutable(),
		field.String("event").Immutable(),
		field.Bytes("body").Immutable(),
		// pending, delivered or failed.
		field.String("status").Default("pending"),
		field.Int("attempts").Default(0),
		field.Int("last_status_code").Default(0),
		field.Int("last_latency_ms").Default(0),
		field.Text("last_error").Optional().Nillable(),
		field.Time("next_attempt_at").Optional().Nillable(),
		field.Time("delivered_at").Optional().Nillable(),
		// The last attempt's request headers, and the start of its answer's
		// body (none when no answer came), for the operator to read.
		field.JSON("last_request_headers", map[string]string{}).Optional(),
		field.Text("last_response_body").Optional().Nillable(),
		// The delivery job that owns the delivery now: a resend replaces it.
		field.Int64("job_id").Optional().Nillable(),
	}
}

// Indexes of the WebhookDelivery.
func (WebhookDelivery) Indexes() []ent.Index {
	return []ent.Index{
		// The delivery log of a store, newest first, by status or not.
		index.Fields("store_id", "created_at", "uid"),
		index.Fields("store_id", "status", "created_at", "uid"),
	}
}
