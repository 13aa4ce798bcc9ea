// Package shop serves Family B: a shop reports a paid order as design
// references and quantities (one print per line, rendered from the design
// version's document through the job queue), and polls it, or waits for
// the print_files.ready webhook, to download the files.
package shop

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/platen-print/platen/internal/files"
)

// Limits of a shop order.
const (
	MaxLines    = 500
	MaxQuantity = 10_000
	maxIDLen    = 255
)

// Print statuses of Family B.
const (
	PrintProcessing = "processing"
	PrintReady      = "ready"
	PrintFailed     = "failed"
	PrintCancelled  = "cancelled"
)

// Order is a Family B order.
type Order struct {
	ID              int
	TeamID          int
	StoreID         string
	ExternalID      string
	ReferenceNumber string
	// LinesHash identifies the lines as created; see hashLines.
	LinesHash string
	Lines     []Line
}

// Line is one line of an order, with its print.
type Line struct {
	ExternalID      string
	DesignVersionID string
	Quantity        int
	Print           Print
}

// Print is a line's print: its id, status and, when ready, how many files
// it has (one per design surface).
type Print struct {
	UID    string
	Status string
	Files  int
	// Digests are the files' sizes and SHA-256s, in file order; nil for
	// files stored before they were kept.
	Digests []files.Digest
	// Error is why the print failed; nil unless Status is failed.
	Error *string
	// Warnings are what the preflight found when the files were made.
	Warnings []files.Warning
}

// Store is the persistence of shop orders.
type Store interface {
	// CreateOrder stores o with a print per line and queues their renders,
	// all in one transaction, filling in the ids. When the store already
	// holds an order with o's external_id, it stores nothing and returns
	// that order instead (also when a concurrent create won the race). A
	// design version the team does not have is a validation error naming
	// lines[i].design_version_id.
	CreateOrder(ctx context.Context, o *Order) (existing *Order, err error)
	// GetOrder finds an order of the store by reference_number, else by
	// external_id; apierr.ErrNotFound when there is none.
	GetOrder(ctx context.Context, storeID, ref string) (*Order, error)
}

// hashLines identifies lines by what the client sent (after defaults), so
// that a create repeated with the same lines is recognised as the same
// order, and one with other lines is not.
func hashLines(lines []Line) string {
	type line struct {
		ExternalID      string `json:"e"`
		DesignVersionID string `json:"d"`
		Quantity        int    `json:"q"`
	}
	canonical := make([]line, len(lines))
	for i, l := range lines {
		canonical[i] = line{l.ExternalID, l.DesignVersionID, l.Quantity}
	}
	data, _ := json.Marshal(canonical) // a slice of plain structs always encodes
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
