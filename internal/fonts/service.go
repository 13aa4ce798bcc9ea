package fonts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/timestamppb"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/pagination"
	"github.com/platen-print/platen/internal/render"
)

// MaxNameRunes bounds a font's name.
const MaxNameRunes = 128

// Service is the operator API's fonts (internal/operatorapi serves them).
// Staff act on every team's fonts; a team's operator on that team's only
// (another team's is 404).
type Service struct {
	store Store
	// shared reports the fonts every render has besides the built-in
	// ones (--font-dir), which a team's font may not be named after.
	shared func(name string) bool
}

// NewService returns the service on store; shared reports the --font-dir
// fonts' names (nil: none).
func NewService(store Store, shared func(name string) bool) *Service {
	if shared == nil {
		shared = func(string) bool { return false }
	}
	return &Service{store: store, shared: shared}
}

// CreateFont checks and stores a font for the caller's team, or team_id's
// (staff; a team's operator may name their own).
func (s *Service) CreateFont(ctx context.Context, req *platenv1.CreateFontRequest) (*platenv1.Font, error) {
	p, err := auth.OperatorFromContext(ctx)
	if err != nil {
		return nil, err
	}
	team, err := p.OwningTeam(req.TeamId, "designs may use the font", "adds fonts")
	if err != nil {
		return nil, err
	}
	var vs apierr.Violations
	if msg := s.checkName(req.Name); msg != "" {
		vs.Add("name", "%s", msg)
	}
	info, err := Inspect(req.Data)
	if err != nil {
		vs.Add("data", "%s", err.Error())
	}
	if err := vs.Err(); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(req.Data)
	f := &Font{UID: uuid.NewString(), TeamID: team, Name: req.Name, SHA256: hex.EncodeToString(sum[:]),
		Size: len(req.Data), Info: *info, Data: req.Data, Fallback: req.Fallback}
	if err := s.store.CreateFont(ctx, f); err != nil {
		return nil, err
	}
	return toProto(f), nil
}

// checkName is what is wrong with a font's name, or "".
func (s *Service) checkName(name string) string {
	switch {
	case name == "":
		return "is required: the name designs give in a text layer's font field"
	case !utf8.ValidString(name), strings.IndexFunc(name, unicode.IsControl) >= 0:
		return "must be printable text"
	case utf8.RuneCountInString(name) > MaxNameRunes:
		return "must be at most 128 characters"
	case strings.TrimSpace(name) != name:
		return "must not begin or end with spaces"
	case render.Builtin(name):
		return "\"" + name + "\" is a built-in font; give the font another name"
	case s.shared(name):
		return "\"" + name + "\" is a font every team has (--font-dir); give the font another name"
	}
	return ""
}

// GetFont returns a font the caller may see.
func (s *Service) GetFont(ctx context.Context, req *platenv1.GetFontRequest) (*platenv1.Font, error) {
	f, err := s.visible(ctx, req.FontUid)
	if err != nil {
		return nil, err
	}
	return toProto(f), nil
}

// visible reads uid when the caller may see it; another team's is 404.
func (s *Service) visible(ctx context.Context, uid string) (*Font, error) {
	return auth.Visible(ctx, uid, s.store.GetFont, func(v *Font) int { return v.TeamID }, NotFound)
}

// NotFound is the answer for a font the caller may not see, the same as
// for one that does not exist.
func NotFound(uid string) error { return apierr.NotFound("font %q not found", uid) }

// ListFonts pages through the fonts the caller may see.
func (s *Service) ListFonts(ctx context.Context, req *platenv1.ListFontsRequest) (*platenv1.ListFontsResponse, error) {
	p, err := auth.OperatorFromContext(ctx)
	if err != nil {
		return nil, err
	}
	page, err := pagination.Parse(req.PageSize, req.PageToken)
	if err != nil {
		return nil, err
	}
	q := Query{PageSize: page.Size, After: page.After}
	if q.TeamID, err = p.ListTeam(req.TeamId); err != nil {
		return nil, err
	}
	list, more, err := s.store.ListFonts(ctx, q)
	if err != nil {
		return nil, err
	}
	resp := &platenv1.ListFontsResponse{}
	resp.Fonts, resp.NextPageToken = pagination.Answer(list, more, toProto,
		func(f *Font) pagination.Cursor { return pagination.Cursor{CreatedAt: f.CreatedAt, UID: f.UID} })
	return resp, nil
}

// DeleteFont removes a font; print files already rendered keep the subset
// embedded in them.
func (s *Service) DeleteFont(ctx context.Context, req *platenv1.DeleteFontRequest) (*platenv1.DeleteFontResponse, error) {
	if _, err := s.visible(ctx, req.FontUid); err != nil {
		return nil, err
	}
	if err := s.store.DeleteFont(ctx, req.FontUid); err != nil {
		return nil, err
	}
	return &platenv1.DeleteFontResponse{Message: "Font successfully deleted", FontUid: req.FontUid}, nil
}

func toProto(f *Font) *platenv1.Font {
	return &platenv1.Font{
		Uid: f.UID, TeamId: int32(f.TeamID), Name: f.Name, //nolint:gosec // ids fit
		Family: f.Family, Style: f.Style, PostscriptName: f.PostScriptName, Format: f.Format,
		SizeBytes: int32(f.Size), Sha256: f.SHA256, Embedding: f.Embedding, //nolint:gosec // at most MaxBytes
		CreatedAt: timestamppb.New(f.CreatedAt), Fallback: f.Fallback,
	}
}
