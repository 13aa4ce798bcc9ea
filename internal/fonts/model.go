// Package fonts owns the fonts operators add for a team through the
// operator API: TTF or OTF files, checked with the font parser the
// renderer uses and refused when their licence (OS/2 fsType) forbids
// embedding them subset in print files; kept in the database so that every
// serve process has them; and sent, those a design names, in the render
// request of each of the team's prints (Resolver), since render processes
// keep nothing of a team's.
package fonts

import (
	"context"
	"time"

	"github.com/platen-print/platen/internal/pagination"
)

// Font is a team's font, without its file unless read for a render.
type Font struct {
	UID    string
	TeamID int
	// Name is what designs give in a text layer's font field, matched
	// exactly.
	Name   string
	SHA256 string
	Size   int
	Info
	// Fallback puts the font in the team's fallback chain.
	Fallback  bool
	CreatedAt time.Time
	// Data is the file; only Store.Data reads it.
	Data []byte
}

// Ref names a font a render needs: by name, the file's uid and hash, and
// whether it is one of the team's fallback fonts.
type Ref struct {
	Name, UID, SHA256 string
	Fallback          bool
}

// Query selects a page of fonts: of one team (TeamID), or of every team
// (staff, TeamID 0).
type Query struct {
	TeamID   int
	PageSize int
	After    *pagination.Cursor
}

// Store keeps fonts.
type Store interface {
	// CreateFont stores f (UID, file and info set) and sets its
	// CreatedAt; a name the team uses already is an apierr.Conflict
	// naming name.
	CreateFont(ctx context.Context, f *Font) error
	// GetFont returns the font uid without its file (apierr.ErrNotFound
	// when none).
	GetFont(ctx context.Context, uid string) (*Font, error)
	// ListFonts returns a page, newest first, and whether more follow.
	ListFonts(ctx context.Context, q Query) ([]*Font, bool, error)
	// DeleteFont removes uid.
	DeleteFont(ctx context.Context, uid string) error
	// TeamFonts returns the fonts of teamID among names, and its fallback
	// fonts (in the order they were added) whatever their names.
	TeamFonts(ctx context.Context, teamID int, names []string) ([]Ref, error)
	// Data returns the file of the font uid, which must hash to sha256
	// (apierr.ErrNotFound when it went, or was replaced).
	Data(ctx context.Context, uid, sha256 string) ([]byte, error)
}
