// Package schema is Platen's Ent schema: one file per table.
package schema

import (
	"time"

	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/mixin"
)

// TimeMixin adds created_at and updated_at, both in UTC.
type TimeMixin struct{ mixin.Schema }

// Fields of the TimeMixin.
func (TimeMixin) Fields() []ent.Field {
	return []ent.Field{
		field.Time("created_at").Default(now).Immutable(),
		field.Time("updated_at").Default(now).UpdateDefault(now),
	}
}

// now is the time rows record: UTC, to the microsecond, which is what
// PostgreSQL keeps, so an answer never changes between a write and a read.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
