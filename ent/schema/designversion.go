package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// DesignVersion is one immutable version of a design in a team's registry,
// shared by both families. config_hash identifies its document so that a
// second registration can tell "the same again" from "another config".
type DesignVersion struct{ ent.Schema }

// Fields of the DesignVersion.
func (DesignVersion) Fields() []ent.Field {
	return []ent.Field{
		field.Int("team_id").Immutable(),
		field.String("version_id").Immutable(),
		field.Text("template_config").Immutable(),
		field.String("config_hash").Immutable(),
		field.JSON("thumbnails", []string{}).Immutable(),
		field.Time("created_at").Default(now).Immutable(),
	}
}

// Indexes of the DesignVersion.
func (DesignVersion) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("team_id", "version_id").Unique(),
		index.Fields("team_id", "created_at", "version_id"),
	}
}
