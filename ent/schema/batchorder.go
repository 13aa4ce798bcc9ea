package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// BatchOrder is a batch of a team's order items laid out on the press
// sheets of print templates: one file per template, made by one job.
type BatchOrder struct{ ent.Schema }

// BatchFile is the file of one template of a batch: where it is stored, how
// many sheets it has, and its size and SHA-256 (lowercase hex), hashed as
// it was stored (absent, "" and 0, for files stored before they were kept).
type BatchFile struct {
	TemplateUID string `json:"template_uid"`
	Key         string `json:"key"`
	Pages       int    `json:"pages"`
	Size        int64  `json:"size,omitempty"`
	SHA256      string `json:"sha256,omitempty"`
}

// Mixin of the BatchOrder.
func (BatchOrder) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the BatchOrder.
func (BatchOrder) Fields() []ent.Field {
	return []ent.Field{
		field.String("uid").Unique().Immutable(),
		field.Int("team_id").Immutable(),
		// The stores of the items, sorted: whom the batch's events go to,
		// and which store-bound tokens may see it.
		field.JSON("store_ids", []string{}).Immutable(),
		field.String("status"),
		field.Text("error").Optional().Nillable(),
		field.JSON("order_items", []string{}).Immutable(),
		field.JSON("print_templates", []string{}).Immutable(),
		// For each item, the index in print_templates of the template that
		// places it.
		field.JSON("item_templates", []int{}).Immutable(),
		field.JSON("files", []BatchFile{}).Optional(),
		field.Int64("job_id").Optional().Nillable(),
		// The create request, when it carried an Idempotency-Key
		// (idempotency.Token): a rerun of a request whose process stopped
		// before the key's record got its answer finds the batch its first
		// run made, instead of making a second one.
		field.String("idempotency_token").Optional().Nillable().Immutable().Sensitive(),
	}
}

// Indexes of the BatchOrder.
func (BatchOrder) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("team_id", "created_at"),
		index.Fields("team_id", "idempotency_token").Unique(),
	}
}
