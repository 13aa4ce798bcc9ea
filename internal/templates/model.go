// Package templates owns print templates: the press sheets operators make,
// onto which batches of a team's items are laid out. A template is a sheet
// size with margins, the space between slots, a grid of equal slots or
// explicit ones, how much of each item's bleed to keep, crop marks, and the
// product variants of its team it serves. Lengths are in millimetres.
package templates

import (
	"context"
	"time"

	"github.com/platen-print/platen/internal/pagination"
	"github.com/platen-print/platen/internal/press"
)

// Template is a print template.
type Template struct {
	UID    string
	TeamID int
	Name   string
	// Sheet size and margins; Gap is the space between grid slots.
	SheetWidth, SheetHeight                          float64
	MarginTop, MarginRight, MarginBottom, MarginLeft float64
	Gap                                              float64
	// SlotBleed is how much of each item's bleed is kept around its slot.
	SlotBleed float64
	// Exactly one of Grid and Slots is set.
	Grid       *Grid
	Slots      []Slot
	CropMarks  bool
	VariantIDs []int
	// Press are the press settings of its batch files, over the team's
	// default.
	Press     press.Settings
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Grid is a grid of equal slots inside the margins, from their top-left
// corner, Gap apart; a slot size of 0 divides the printable area evenly.
type Grid struct {
	Columns, Rows         int
	SlotWidth, SlotHeight float64
}

// Slot is a rectangle on the sheet, from its top-left corner.
type Slot struct {
	X, Y, Width, Height float64
}

// Query selects a page of templates: of one team (TeamID), or of every
// team (staff, TeamID 0); only those assigned to VariantID when set.
type Query struct {
	TeamID    int
	VariantID *int
	PageSize  int
	After     *pagination.Cursor
}

// Store keeps templates.
type Store interface {
	// CheckVariants refuses, with an apierr.Invalid naming field[i], an id
	// that names no product variant of teamID (whether it does not exist
	// or is another team's).
	CheckVariants(ctx context.Context, teamID int, ids []int, field string) error
	// CreateTemplate stores t (its UID set) with its variant assignments.
	CreateTemplate(ctx context.Context, t *Template) error
	// GetTemplate returns the template uid (apierr.ErrNotFound when none).
	GetTemplate(ctx context.Context, uid string) (*Template, error)
	// ListTemplates returns a page, newest first, and whether more follow.
	ListTemplates(ctx context.Context, q Query) ([]*Template, bool, error)
	// UpdateTemplate reads uid, lets change edit it (it may refuse with an
	// error), and stores the result, assignments included, in one
	// transaction.
	UpdateTemplate(ctx context.Context, uid string, change func(*Template) error) (*Template, error)
	// DeleteTemplate removes uid and its assignments.
	DeleteTemplate(ctx context.Context, uid string) error
}
