package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/platen-print/platen/internal/files"
)

// ShopPrint is the print of one Family B line (the line's fields live here
// too: a line has exactly one print), with its render state and files.
type ShopPrint struct{ ent.Schema }

// FileDigest is a stored file's size in bytes and SHA-256 (lowercase hex).
type FileDigest struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Mixin of the ShopPrint.
func (ShopPrint) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the ShopPrint.
func (ShopPrint) Fields() []ent.Field {
	return []ent.Field{
		// The print id clients see.
		field.String("uid").Unique().Immutable(),
		field.Int("shop_order_id").Immutable(),
		field.Int("team_id").Immutable(),
		field.String("store_id").Immutable(),
		field.Int("position").Immutable(),
		field.String("line_external_id").Immutable(),
		field.String("design_version_id").Immutable(),
		field.Int("quantity").Immutable(),
		// processing, ready, failed or cancelled.
		field.String("status").Default("processing"),
		// Why the print failed, for operators; Family B shows no reason.
		field.Text("error").Optional().Nillable(),
		// Storage keys of the files, one per design surface, set when ready.
		field.JSON("file_keys", []string{}).Optional(),
		// For each of file_keys, its size and SHA-256, hashed as it was
		// stored; absent for files stored before they were kept.
		field.JSON("file_digests", []FileDigest{}).Optional(),
		// len(file_keys), so that the hot order read needs no JSON.
		field.Int("file_count").Default(0),
		// What the preflight found when the files were made.
		field.JSON("warnings", []files.Warning{}).Optional(),
		// The render job that owns the print now (see OrderItem).
		field.Int64("job_id").Optional().Nillable(),
		// The operator's action that stopped the print, flagged or
		// cancelled (see OrderItem's print_stopped_by).
		field.String("stopped_by").Optional().Nillable(),
		// When the render that owns the print started: a processing print
		// without it is still queued (Family A says so by its status).
		field.Time("render_started_at").Optional().Nillable(),
	}
}

// Edges of the ShopPrint.
func (ShopPrint) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("order", ShopOrder.Type).Ref("prints").Field("shop_order_id").Unique().Required().Immutable(),
	}
}

// Indexes of the ShopPrint.
func (ShopPrint) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("shop_order_id", "position").Unique(),
		index.Fields("shop_order_id", "line_external_id").Unique(),
		// The operator's print list: newest first, of a team, a status or
		// a store. (A search finds prints by their search keys.)
		index.Fields("team_id", "created_at", "uid"),
		index.Fields("created_at", "uid"),
		index.Fields("status", "created_at", "uid"),
		index.Fields("store_id", "created_at", "uid"),
	}
}
