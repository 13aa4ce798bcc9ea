package storage

import (
	"context"

	"github.com/platen-print/platen/ent"
	entfont "github.com/platen-print/platen/ent/font"
	"github.com/platen-print/platen/ent/predicate"
	"github.com/platen-print/platen/ent/schema"
	"github.com/platen-print/platen/ent/team"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/fonts"
)

// Fonts keeps the fonts teams added.
type Fonts struct{ db *DB }

// Fonts returns the fonts' store.
func (db *DB) Fonts() *Fonts { return &Fonts{db: db} }

var _ fonts.Store = (*Fonts)(nil)

// CreateFont stores f; a name its team uses already is a conflict.
func (s *Fonts) CreateFont(ctx context.Context, f *fonts.Font) error {
	exists, err := s.db.read.Team.Query().Where(team.ID(f.TeamID)).Exist(ctx)
	if err != nil {
		return err
	}
	if !exists {
		return apierr.Invalid("team_id", "names no team (%d)", f.TeamID)
	}
	row, err := s.db.write.Font.Create().SetUID(f.UID).SetTeamID(f.TeamID).SetName(f.Name).SetFallback(f.Fallback).
		SetData(f.Data).SetSha256(f.SHA256).SetMetadata(schema.FontMetadata{
		Family: f.Family, Style: f.Style, PostScriptName: f.PostScriptName, Format: f.Format,
		Size: f.Size, FsType: f.FsType, Embedding: f.Embedding,
	}).Save(ctx)
	if ent.IsConstraintError(err) {
		return apierr.Conflict("name", "team %d has a font named %q already; delete it first, or give this one another name", f.TeamID, f.Name)
	}
	if err != nil {
		return err
	}
	f.CreatedAt = row.CreatedAt.UTC()
	return nil
}

// fontColumns are a font's columns but its file.
var fontColumns = []string{entfont.FieldID, entfont.FieldUID, entfont.FieldTeamID, entfont.FieldName,
	entfont.FieldSha256, entfont.FieldMetadata, entfont.FieldCreatedAt}

// GetFont returns the font uid, without its file.
func (s *Fonts) GetFont(ctx context.Context, uid string) (*fonts.Font, error) {
	row, err := s.db.read.Font.Query().Where(entfont.UID(uid)).Select(fontColumns...).Only(ctx)
	if err != nil {
		return nil, notFound(err, "font %q not found", uid)
	}
	return fontFromRow(row), nil
}

// ListFonts returns a page of fonts, newest first.
func (s *Fonts) ListFonts(ctx context.Context, q fonts.Query) ([]*fonts.Font, bool, error) {
	query := s.db.read.Font.Query()
	if q.TeamID != 0 {
		query = query.Where(entfont.TeamID(q.TeamID))
	}
	rows, err := query.Where(after[predicate.Font](q.After, entfont.FieldUID)).Order(ent.Desc(entfont.FieldCreatedAt), ent.Desc(entfont.FieldUID)).
		Limit(q.PageSize + 1).Select(fontColumns...).All(ctx)
	if err != nil {
		return nil, false, err
	}
	page, more := cutPage(rows, q.PageSize, fontFromRow)
	return page, more, nil
}

// DeleteFont removes uid.
func (s *Fonts) DeleteFont(ctx context.Context, uid string) error {
	n, err := s.db.write.Font.Delete().Where(entfont.UID(uid)).Exec(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return fonts.NotFound(uid)
	}
	return nil
}

// TeamFonts returns the fonts of teamID among names, and its fallback
// fonts, oldest first.
func (s *Fonts) TeamFonts(ctx context.Context, teamID int, names []string) ([]fonts.Ref, error) {
	rows, err := s.db.read.Font.Query().
		Where(entfont.TeamID(teamID), entfont.Or(entfont.NameIn(names...), entfont.Fallback(true))).
		Order(ent.Asc(entfont.FieldCreatedAt), ent.Asc(entfont.FieldUID)).
		Select(entfont.FieldUID, entfont.FieldName, entfont.FieldSha256, entfont.FieldFallback).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]fonts.Ref, len(rows))
	for i, r := range rows {
		out[i] = fonts.Ref{Name: r.Name, UID: r.UID, SHA256: r.Sha256, Fallback: r.Fallback}
	}
	return out, nil
}

// Data returns the file of the font uid when it hashes to sha256.
func (s *Fonts) Data(ctx context.Context, uid, sha256 string) ([]byte, error) {
	row, err := s.db.read.Font.Query().Where(entfont.UID(uid), entfont.Sha256(sha256)).
		Select(entfont.FieldData).Only(ctx)
	if err != nil {
		return nil, notFound(err, "font %q not found", uid)
	}
	return row.Data, nil
}

func fontFromRow(r *ent.Font) *fonts.Font {
	m := r.Metadata
	return &fonts.Font{
		UID: r.UID, TeamID: r.TeamID, Name: r.Name, SHA256: r.Sha256, Size: m.Size,
		Info: fonts.Info{Family: m.Family, Style: m.Style, PostScriptName: m.PostScriptName,
			Format: m.Format, FsType: m.FsType, Embedding: m.Embedding},
		Fallback:  r.Fallback,
		CreatedAt: r.CreatedAt.UTC(),
	}
}
