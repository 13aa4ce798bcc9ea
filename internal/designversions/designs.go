// Package designversions is a team's registry of design versions, shared by both
// families: Family B lines name a version, Family A items carrying
// design_version_id and template_config register one. A version never
// changes: registering its id again with the same document answers the
// stored version, with another document is a conflict. DesignService
// exposes it under /api/v1/design-versions.
package designversions

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/platen-print/platen/internal/pagination"
)

// MaxIDLength bounds a design_version_id.
const MaxIDLength = 255

// Version is one registered design version.
type Version struct {
	TeamID         int
	ID             string
	TemplateConfig string
	// Fingerprint identifies the document (designdoc.Fingerprint).
	Fingerprint string
	Thumbnails  []string
	CreatedAt   time.Time
}

// Query selects a page of versions.
type Query struct {
	TeamID   int
	After    *pagination.Cursor
	PageSize int
}

// Store is the registry's persistence; a version of another team is
// apierr.ErrNotFound.
type Store interface {
	// RegisterVersion stores v unless the team has its id, and answers the
	// stored version; a stored version with another fingerprint is a
	// conflict naming design_version_id.
	RegisterVersion(ctx context.Context, v *Version) (stored *Version, err error)
	GetVersion(ctx context.Context, teamID int, id string) (*Version, error)
	ListVersions(ctx context.Context, q Query) (page []*Version, more bool, err error)
}

// CheckID says what is wrong with a design_version_id: it must be 1 to
// MaxIDLength characters of printable text, with no slash, so that it can
// stand in a URL path.
func CheckID(id string) error {
	switch {
	case id == "":
		return errors.New("must not be empty")
	case !utf8.ValidString(id):
		return errors.New("must be UTF-8 text")
	case utf8.RuneCountInString(id) > MaxIDLength:
		return fmt.Errorf("must be at most %d characters", MaxIDLength)
	}
	for _, r := range id {
		if r == '/' || r == ' ' || !unicode.IsPrint(r) {
			return fmt.Errorf("must be printable text without slashes, spaces or control characters: %q is not", id)
		}
	}
	return nil
}

// ConflictMessage explains why an id cannot be registered again.
func ConflictMessage(id string) string {
	return fmt.Sprintf("design version %q already exists with another template_config; versions never change, so give the new design a new design_version_id", id)
}
