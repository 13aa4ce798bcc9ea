// Package batches is the batch orders of Family A: a team's
// order items laid out on the press sheets of its print templates. A batch
// is checked whole when it is made (every item and template the caller's,
// every item placed by a listed template assigned to its variant, every
// item fitting a slot), then one job renders one file per template inside
// the render processes, and the batch goes from Batching to Ready, or to
// Failed with the reason; either way each store whose items it holds gets
// a signed batch_order.ready or batch_order.failed event.
package batches

import (
	"context"
	"time"

	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/files"
	"github.com/platen-print/platen/internal/pagination"
	"github.com/platen-print/platen/internal/templates"
)

// Batch statuses.
const (
	StatusBatching = "Batching"
	StatusReady    = "Ready"
	StatusFailed   = "Failed"
)

// Limits of a batch. MaxDesignBytes bounds the distinct designs one batch
// reads and sends to a render process, whose memory is bounded too.
const (
	MaxItems       = 5_000
	MaxTemplates   = 100
	MaxDesignBytes = 32 << 20
)

// Batch is a batch order.
type Batch struct {
	UID    string
	TeamID int
	// StoreIDs are the stores of the items, sorted.
	StoreIDs []string
	Status   string
	// Error is why the batch failed; empty unless Failed.
	Error          string
	OrderItems     []string
	PrintTemplates []string
	// ItemTemplates holds, for each item, the index in PrintTemplates of
	// the template that places it.
	ItemTemplates []int
	// Files holds one file per template once Ready.
	Files []File
	// IdempotencyToken names the create request when it carried an
	// Idempotency-Key (idempotency.Token); empty otherwise.
	IdempotencyToken string
	JobID            *int64
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// File is the file of one template of a ready batch, with its size and
// SHA-256 as stored (Digest.SHA256 is "" for a file stored before they
// were kept).
type File struct {
	TemplateUID string
	Key         string
	Pages       int
	Digest      files.Digest
}

// KnownDigest is f's digest, or nil for a file stored before digests
// were kept.
func (f *File) KnownDigest() *files.Digest {
	if f.Digest.SHA256 == "" {
		return nil
	}
	return &f.Digest
}

// Item is what a batch needs of an order item.
type Item struct {
	UID                  string
	OrderUID             string
	StoreID              string
	EcommerceOrderID     string
	EcommerceOrderItemID string
	EcommerceVariantID   string
	Quantity             int
	// DesignKey names the item's design among the batch's: items with the
	// same key have the same template_config (Store.Designs).
	DesignKey string
	// DesignBytes is the length of the template_config.
	DesignBytes int
}

// Label is the small print beside each of the item's slots: its order and
// item as the shop knows them.
func (it *Item) Label() string { return it.EcommerceOrderID + " / " + it.EcommerceOrderItemID }

// Store keeps batches.
type Store interface {
	// Items returns the items of uids that p may act on (its team's, its
	// store's when the token is store-bound), by uid; the others are
	// absent.
	Items(ctx context.Context, p auth.Principal, uids []string) (map[string]*Item, error)
	// Designs returns the template_config (as stored: URL-encoded or not)
	// of each distinct design of items, by DesignKey, each read once.
	Designs(ctx context.Context, teamID int, items []*Item) (map[string]string, error)
	// Template returns the template uid of any team (apierr.ErrNotFound
	// when none).
	Template(ctx context.Context, uid string) (*templates.Template, error)
	// LiveBatches finds, of the order items uids, those a live batch
	// (Batching or Ready) holds, with the newest such batch's uid.
	LiveBatches(ctx context.Context, uids []string) (map[string]string, error)
	// CreateBatch stores b (Status Batching) and queues its job, in one
	// transaction; it sets b's JobID and times.
	CreateBatch(ctx context.Context, b *Batch) error
	// Batch returns the batch uid of any team (apierr.ErrNotFound when
	// none).
	Batch(ctx context.Context, uid string) (*Batch, error)
	// BatchByToken returns the team's batch made by the request token
	// names (idempotency.Token), or apierr.ErrNotFound.
	BatchByToken(ctx context.Context, teamID int, token string) (*Batch, error)
	// ListBatches returns a page, newest first, and whether more follow.
	ListBatches(ctx context.Context, q Query) ([]*Batch, bool, error)
	// FinishBatch makes the batch Ready with files, and FailBatch Failed
	// with the reason, while jobID owns it, each with its events in the
	// same transaction; they report whether they changed it.
	FinishBatch(ctx context.Context, uid string, jobID int64, files []File) (bool, error)
	FailBatch(ctx context.Context, uid string, jobID int64, reason string) (bool, error)
}

// Query selects a page of batches: of one team (TeamID), or of every team
// (staff, TeamID 0); of one status when set.
type Query struct {
	TeamID   int
	Status   string
	PageSize int
	After    *pagination.Cursor
}

// Links signs a batch's download links (downloads.Links).
type Links interface {
	BatchFileURL(batchUID string, index int) string
}

// Visible reports whether p may see b: for an operator, a batch of a team
// they see; for a client, its team's, and for a store-bound token only a
// batch of that store's items alone.
func Visible(p auth.Principal, b *Batch) bool {
	if p.IsOperator() {
		return p.SeesTeam(b.TeamID)
	}
	if p.TeamID != b.TeamID {
		return false
	}
	return p.StoreID == "" || (len(b.StoreIDs) == 1 && b.StoreIDs[0] == p.StoreID)
}
