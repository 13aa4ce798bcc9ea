package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
)

// ServiceKey is a secret the service makes for itself once and shares
// between its processes through the database: the key of download-link
// tokens and of the local file store's signed URLs.
type ServiceKey struct{ ent.Schema }

// Fields of the ServiceKey.
func (ServiceKey) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").Unique().Immutable(),
		field.Bytes("value").Immutable().Sensitive(),
		field.Time("created_at").Default(now).Immutable(),
	}
}
