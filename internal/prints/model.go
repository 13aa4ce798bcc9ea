// Package prints is the operator's view of every print, of both families:
// a Family A order item's print file and a Family B line's print, found
// by any of their references, and the operator's actions on them: retry a
// failed print, flag one (it fails with the operator's reason, which the
// client sees), cancel one (its pending render stops, its files go).
// Staff act on every team's prints, a team's operator on that team's only.
// Which action a print's status allows, and what it makes of the print,
// are Action.On's rules; the store writes them.
package prints

import (
	"context"
	"time"

	"github.com/platen-print/platen/internal/files"
	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/pagination"
)

// Families.
const (
	FamilyA = "A"
	FamilyB = "B"
)

// Print is one print of either family.
type Print struct {
	ID      string // the item's uid (A) or the print's (B)
	Family  string
	TeamID  int
	StoreID string
	// Status is in the family's own words: A received, processing,
	// processingfailed or ready; B processing, ready, failed or cancelled.
	Status string
	// Stage is what the store knows beyond the status (see State).
	Stage Stage
	Error *string
	// Family A's references.
	OrderUID, EcommerceOrderID, EcommerceOrderItemID string
	// Family B's references.
	ReferenceNumber, ExternalID, LineExternalID string
	DesignVersionID                             *string
	Quantity                                    int
	// Files is how many files a ready print has (A: one; B: one per
	// surface).
	Files int
	// Digests are their sizes and SHA-256s, in file order; nil for files
	// stored before they were kept.
	Digests []files.Digest
	// Warnings are what the preflight found when the files were made.
	Warnings  []files.Warning
	CreatedAt time.Time
	UpdatedAt time.Time
	// History is filled for a single print (Store.GetPrint), oldest first.
	History []Event
	// Batch is the newest live batch (Batching or Ready) holding this
	// Family A print; empty when none does.
	Batch string
}

// Query selects a page of prints, newest first.
type Query struct {
	TeamID  int    // 0: every team (staff)
	Family  string // "" for both
	Status  string // "" for any; in either family's words
	State   string // "" for any; one of States
	StoreID string // "" for every store
	// CreatedFrom and CreatedBefore bound the creation time (zero: open).
	CreatedFrom, CreatedBefore time.Time
	// Search finds the prints one of whose references equals it: print id,
	// order uid, e-commerce order or item id, order number,
	// reference_number, external ids, design version id.
	Search   string
	PageSize int
	After    *pagination.Cursor
}

// Store keeps prints.
type Store interface {
	// GetPrintOrder finds the order of print id (a *apierr NotFound when
	// there is no such print), with every print of it.
	GetPrintOrder(ctx context.Context, id string) (*Order, error)
	// ListPrints returns a page and whether more follow.
	ListPrints(ctx context.Context, q Query) ([]*Print, bool, error)
	// CountPrints counts the prints q selects in each of States, up to
	// CountCap; it reads q's team, store and family, and nothing else.
	CountPrints(ctx context.Context, q Query) (map[string]int, error)
	// GetPrint returns a print of any team (apierr.ErrNotFound when none).
	GetPrint(ctx context.Context, id string) (*Print, error)
	// RetryPrint renders a failed print again; FlagPrint fails it with the
	// reason; CancelPrint cancels it. Each writes what its Action makes of
	// the print (Action.On): its status, its pending render stopped and its
	// files removed as needed, in one transaction with the history's event
	// naming the operator; and refuses (apierr.Precondition) a print whose
	// status does not allow it. check is called with the print first,
	// inside the transaction, so that the caller's rights are checked on
	// what it changes.
	RetryPrint(ctx context.Context, id string, operatorID int, check func(*Print) error) (*Print, error)
	FlagPrint(ctx context.Context, id, reason string, operatorID int, check func(*Print) error) (*Print, error)
	CancelPrint(ctx context.Context, id string, operatorID int, check func(*Print) error) (*Print, error)
}

// Links signs the download links of ready prints' files.
type Links interface {
	ItemURL(orderUID, itemUID string) string
	ShopFileURLs(reference string) func(printUID string, index int) string
}

// History event kinds.
const (
	EventQueued    = "queued"
	EventRendering = "rendering"
	EventReady     = "ready"
	EventFailed    = "failed"
	EventRetried   = "retried"
	EventFlagged   = "flagged"
	EventCancelled = "cancelled"
)

// Event is one step of a print's history.
type Event struct {
	Kind string
	At   time.Time
	// Detail is a failure's or a flag's reason.
	Detail *string
	// OperatorEmail is who retried, flagged or cancelled.
	OperatorEmail *string
}

// Order is the order a print belongs to, with every print of it in the
// order's order.
type Order struct {
	Family    string
	TeamID    int
	StoreID   string
	CreatedAt time.Time
	// A is Family A's order as stored, its items left out (the prints
	// stand for them); nil for Family B.
	A *orders.Order
	// Family B's references.
	ReferenceNumber, ExternalID string
	Prints                      []*Print
}
