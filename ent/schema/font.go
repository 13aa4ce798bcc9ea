package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Font is a TTF or OTF font a team's operator added, which the team's
// designs name in a text layer's font field: its file, kept here so that
// every serve process sends it to the render processes, and what was read
// from it at upload.
type Font struct{ ent.Schema }

// FontMetadata is what the font's tables say, read once at upload.
type FontMetadata struct {
	Family         string `json:"family"`
	Style          string `json:"style"`
	PostScriptName string `json:"postscript_name"`
	// Format is "ttf" or "otf".
	Format string `json:"format"`
	Size   int    `json:"size"`
	// FsType is the OS/2 table's fsType (0 without one); Embedding says it
	// in words.
	FsType    uint16 `json:"fs_type"`
	Embedding string `json:"embedding"`
}

// Fields of the Font.
func (Font) Fields() []ent.Field {
	return []ent.Field{
		field.String("uid").Unique().Immutable(),
		field.Int("team_id").Immutable(),
		// Matched exactly, as a text layer's font field is.
		field.String("name").Immutable(),
		field.Bytes("data").Immutable(),
		// SHA-256 of data, lowercase hex.
		field.String("sha256").Immutable(),
		field.JSON("metadata", FontMetadata{}).Immutable(),
		// In the team's fallback chain: tried for characters a text's own
		// font lacks, before the renderer's built-in fallbacks.
		field.Bool("fallback").Default(false).Immutable(),
		field.Time("created_at").Default(now).Immutable(),
	}
}

// Indexes of the Font.
func (Font) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("team_id", "name").Unique(),
		index.Fields("team_id", "created_at", "uid"),
	}
}
