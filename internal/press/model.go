// Package press owns a team's press settings: the CMYK output ICC profiles
// its operators add through the operator API (the press conditions print
// files are made for, PDF/X output intents), and the settings a team's
// default, a product variant and a print template may set: the output
// profile, the preflight limits that fail a print rather than warn, the
// spot colour of cut contours, and whether characters no font has may be
// left out of text. Resolver turns them into a render request's
// settings, the profile's bytes included, since render processes keep
// nothing of a team's.
package press

import (
	"context"
	"time"

	"github.com/platen-print/platen/internal/pagination"
)

// Profile is a team's output profile, without its file unless read for a
// render.
type Profile struct {
	UID    string
	TeamID int
	// Identifier, Condition and RegistryName name the condition in the
	// output intents of the files made for it.
	Identifier, Condition, RegistryName string
	// Description is the profile's own (its desc tag), read at upload.
	Description string
	SHA256      string
	Size        int
	CreatedAt   time.Time
	// Data is the file; only Store.ProfileData reads it.
	Data []byte
}

// Settings are press settings of one level (a team's default, a variant, a
// template); nil fields set nothing, so the next level's apply.
type Settings struct {
	OutputProfileUID *string
	MinEffectivePPI  *int
	SafeMarginMM     *float64
	CutContourSpot   *string
	// AllowMissingGlyphs true leaves characters no font has out of text
	// (a missing_glyphs preflight warning) instead of failing the print.
	AllowMissingGlyphs *bool
}

// Over is s with base's settings where s sets none.
func (s Settings) Over(base Settings) Settings {
	return Settings{
		OutputProfileUID:   or(s.OutputProfileUID, base.OutputProfileUID),
		MinEffectivePPI:    or(s.MinEffectivePPI, base.MinEffectivePPI),
		SafeMarginMM:       or(s.SafeMarginMM, base.SafeMarginMM),
		CutContourSpot:     or(s.CutContourSpot, base.CutContourSpot),
		AllowMissingGlyphs: or(s.AllowMissingGlyphs, base.AllowMissingGlyphs),
	}
}

func or[T any](a, b *T) *T {
	if a != nil {
		return a
	}
	return b
}

// Query selects a page of profiles: of one team (TeamID), or of every team
// (staff, TeamID 0).
type Query struct {
	TeamID   int
	PageSize int
	After    *pagination.Cursor
}

// Store keeps profiles and teams' default settings. Writers of a level's
// settings (variants, templates, the team default) refuse, with an
// apierr.Invalid naming output_profile_id, a profile uid that is not one of
// the team's.
type Store interface {
	// CreateProfile stores p (UID and file set) and sets its CreatedAt; a
	// team that does not exist is an apierr.Invalid naming team_id.
	CreateProfile(ctx context.Context, p *Profile) error
	// GetProfile returns the profile uid without its file
	// (apierr.ErrNotFound when none).
	GetProfile(ctx context.Context, uid string) (*Profile, error)
	// ListProfiles returns a page, newest first, and whether more follow.
	ListProfiles(ctx context.Context, q Query) ([]*Profile, bool, error)
	// DeleteProfile removes uid in one transaction with the check that
	// nothing names it: an apierr.Conflict naming what does.
	DeleteProfile(ctx context.Context, uid string) error
	// ProfileData returns the profile uid of teamID with its file
	// (apierr.ErrNotFound when none).
	ProfileData(ctx context.Context, teamID int, uid string) (*Profile, error)
	// TeamSettings returns the team's default settings
	// (apierr.ErrNotFound when there is no such team).
	TeamSettings(ctx context.Context, teamID int) (Settings, error)
	// UpdateTeamSettings reads the team's default settings, lets change
	// edit them (it may refuse with an error) and stores the result, in one
	// transaction; it returns what it stored.
	UpdateTeamSettings(ctx context.Context, teamID int, change func(*Settings) error) (Settings, error)
}
