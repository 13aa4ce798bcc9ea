package schema

import (
	"encoding/json"

	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/platen-print/platen/internal/files"
)

// OrderItem is one line of a Family A order with its print file state.
// team_id and store_id are copied from the order so that the print-status
// lookup and the per-store uniqueness need no join.
type OrderItem struct{ ent.Schema }

// Mixin of the OrderItem.
func (OrderItem) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the OrderItem.
func (OrderItem) Fields() []ent.Field {
	return []ent.Field{
		field.String("uid").Unique().Immutable(),
		field.Int("order_id").Immutable(),
		field.Int("team_id").Immutable(),
		field.String("store_id").Immutable(),
		field.Int("position"),
		field.String("ecommerce_order_item_id").Immutable(),
		field.String("ecommerce_variant_id"),
		field.Int("quantity"),
		field.Float("price").Optional().Nillable(),
		field.JSON("properties", json.RawMessage{}).Optional(),
		// The design document (template_config) is in item_designs, under
		// the item's id (see ItemDesign).
		// design_hash is the SHA-256 of template_config (hex), so that a
		// batch reads each distinct design once; absent on rows written
		// before it existed.
		field.String("design_hash").Optional().Nillable(),
		// design_bytes is template_config's length, which bounds what a
		// batch reads; absent as design_hash is.
		field.Int("design_bytes").Optional().Nillable(),
		field.JSON("thumbnails", []string{}),
		field.String("design_version_id").Optional().Nillable(),
		field.String("print_status").Default("received"),
		field.Text("print_error").Optional().Nillable(),
		// Storage key of the rendered file, set when print_status is ready.
		field.String("print_file_key").Optional().Nillable(),
		// The rendered file's size in bytes and SHA-256 (lowercase hex),
		// hashed as it was stored; set with print_file_key, and absent for
		// files stored before they were kept.
		field.Int64("print_file_size").Optional().Nillable(),
		field.String("print_file_sha256").Optional().Nillable(),
		// What the preflight found when the file was made (see ShopPrint).
		field.JSON("print_warnings", []files.Warning{}).Optional(),
		// The render job that owns the print now: a job that finds another
		// id here was superseded (a new template_config) and writes nothing.
		field.Int64("print_job_id").Optional().Nillable(),
		// The operator's action that stopped the print, flagged or
		// cancelled, while print_status is processingfailed because of it;
		// every other change of print_status clears it (see prints.State).
		field.String("print_stopped_by").Optional().Nillable(),
	}
}

// Edges of the OrderItem.
func (OrderItem) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("order", Order.Type).Ref("items").Field("order_id").Unique().Required().Immutable(),
	}
}

// Indexes of the OrderItem.
func (OrderItem) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("store_id", "ecommerce_order_item_id").Unique(),
		index.Fields("team_id", "ecommerce_order_item_id"),
		// An order's items, and the prints a search finds by their order.
		index.Fields("order_id", "position"),
		// The operator's print list: newest first, of a team, a status or
		// a store. (A search finds prints by their search keys.)
		index.Fields("team_id", "created_at", "uid"),
		index.Fields("created_at", "uid"),
		index.Fields("print_status", "created_at", "uid"),
		index.Fields("store_id", "created_at", "uid"),
	}
}
