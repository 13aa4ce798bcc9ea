package press

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/timestamppb"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/fieldmask"
	"github.com/platen-print/platen/internal/pagination"
)

// Bounds of a profile's names, in characters.
const (
	maxIdentifier = 128
	maxCondition  = 1000
	maxRegistry   = 256
)

// ProfileDeletedMessage confirms a delete.
const ProfileDeletedMessage = "Output profile successfully deleted"

// Service is the operator API's output profiles and teams' default press
// settings (internal/operatorapi serves them). Staff act on every team's;
// a team's operator on that team's only (another team's profile is 404).
type Service struct{ store Store }

// NewService returns the service on store.
func NewService(store Store) *Service { return &Service{store: store} }

// CreateOutputProfile checks and stores a profile for the caller's team,
// or team_id's (staff; a team's operator may name their own).
func (s *Service) CreateOutputProfile(ctx context.Context, req *platenv1.CreateOutputProfileRequest) (*platenv1.OutputProfile, error) {
	p, err := auth.OperatorFromContext(ctx)
	if err != nil {
		return nil, err
	}
	team, err := p.OwningTeam(req.TeamId, "prints may use the profile", "adds profiles")
	if err != nil {
		return nil, err
	}
	var vs apierr.Violations
	checkText(&vs, "identifier", req.Identifier, maxIdentifier, true)
	checkText(&vs, "condition", req.Condition, maxCondition, false)
	checkText(&vs, "registry_name", req.RegistryName, maxRegistry, false)
	if msg := checkProfile(req.Data); msg != "" {
		vs.Add("data", "%s", msg)
	}
	if err := vs.Err(); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(req.Data)
	prof := &Profile{UID: uuid.NewString(), TeamID: team, Identifier: req.Identifier, Condition: req.Condition,
		RegistryName: req.RegistryName, Description: description(req.Data),
		SHA256: hex.EncodeToString(sum[:]), Size: len(req.Data), Data: req.Data}
	if err := s.store.CreateProfile(ctx, prof); err != nil {
		return nil, err
	}
	return toProto(prof), nil
}

// checkText records what is wrong with a name field, if anything.
func checkText(vs *apierr.Violations, field, v string, limit int, required bool) {
	switch {
	case v == "" && required:
		vs.Add(field, "is required")
	case !utf8.ValidString(v) || !printable(v):
		vs.Add(field, "must be printable text")
	case utf8.RuneCountInString(v) > limit:
		vs.Add(field, "must be at most %d characters", limit)
	case strings.TrimSpace(v) != v:
		vs.Add(field, "must not begin or end with spaces")
	}
}

// GetOutputProfile returns a profile the caller may see.
func (s *Service) GetOutputProfile(ctx context.Context, req *platenv1.GetOutputProfileRequest) (*platenv1.OutputProfile, error) {
	prof, err := s.visible(ctx, req.ProfileUid)
	if err != nil {
		return nil, err
	}
	return toProto(prof), nil
}

// visible reads uid when the caller may see it; another team's is 404.
func (s *Service) visible(ctx context.Context, uid string) (*Profile, error) {
	return auth.Visible(ctx, uid, s.store.GetProfile, func(v *Profile) int { return v.TeamID }, NotFound)
}

// NotFound is the answer for a profile the caller may not see, the same
// as for one that does not exist.
func NotFound(uid string) error { return apierr.NotFound("output profile %q not found", uid) }

// ListOutputProfiles pages through the profiles the caller may see.
func (s *Service) ListOutputProfiles(ctx context.Context, req *platenv1.ListOutputProfilesRequest) (*platenv1.ListOutputProfilesResponse, error) {
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
	list, more, err := s.store.ListProfiles(ctx, q)
	if err != nil {
		return nil, err
	}
	resp := &platenv1.ListOutputProfilesResponse{}
	resp.OutputProfiles, resp.NextPageToken = pagination.Answer(list, more, toProto,
		func(p *Profile) pagination.Cursor { return pagination.Cursor{CreatedAt: p.CreatedAt, UID: p.UID} })
	return resp, nil
}

// DeleteOutputProfile removes a profile nothing names; print files
// already rendered keep it embedded.
func (s *Service) DeleteOutputProfile(ctx context.Context, req *platenv1.DeleteOutputProfileRequest) (*platenv1.DeleteOutputProfileResponse, error) {
	if _, err := s.visible(ctx, req.ProfileUid); err != nil {
		return nil, err
	}
	if err := s.store.DeleteProfile(ctx, req.ProfileUid); err != nil {
		return nil, err
	}
	return &platenv1.DeleteOutputProfileResponse{Message: ProfileDeletedMessage, ProfileUid: req.ProfileUid}, nil
}

// GetPressSettings returns a team's default press settings.
func (s *Service) GetPressSettings(ctx context.Context, req *platenv1.GetPressSettingsRequest) (*platenv1.PressSettings, error) {
	team, err := seenTeam(ctx, req.TeamId)
	if err != nil {
		return nil, err
	}
	settings, err := s.store.TeamSettings(ctx, team)
	if err != nil {
		return nil, err
	}
	return settingsProto(team, settings), nil
}

// UpdatePressSettings replaces the team's default settings the request
// names.
func (s *Service) UpdatePressSettings(ctx context.Context, req *platenv1.UpdatePressSettingsRequest) (*platenv1.PressSettings, error) {
	in := InputOf(req)
	fields, err := fieldmask.Fields(req.UpdateMask, Fields, in.Presence(), "team_id")
	if err != nil {
		return nil, err
	}
	team, err := seenTeam(ctx, req.TeamId)
	if err != nil {
		return nil, err
	}
	settings, err := s.store.UpdateTeamSettings(ctx, team, func(settings *Settings) error {
		var vs apierr.Violations
		for _, f := range fields {
			in.Apply(&vs, settings, f)
		}
		return vs.Err()
	})
	if err != nil {
		return nil, err
	}
	return settingsProto(team, settings), nil
}

// seenTeam is teamID when the caller may act on that team: a team_id
// other than a team operator's own is 403, as everywhere in the operator
// API.
func seenTeam(ctx context.Context, teamID int32) (int, error) {
	p, err := auth.OperatorFromContext(ctx)
	if err != nil {
		return 0, err
	}
	if !p.SeesTeam(int(teamID)) {
		return 0, apierr.PermissionDenied("team_id", "a team's operator reads and sets their own team's press settings only")
	}
	return int(teamID), nil
}

func settingsProto(team int, s Settings) *platenv1.PressSettings {
	out := &platenv1.PressSettings{TeamId: int32(team)} //nolint:gosec // ids fit
	out.OutputProfileId, out.MinEffectivePpi, out.SafeMarginMm, out.CutContourSpot, out.AllowMissingGlyphs = s.Wrappers()
	return out
}

func toProto(p *Profile) *platenv1.OutputProfile {
	return &platenv1.OutputProfile{
		Uid: p.UID, TeamId: int32(p.TeamID), Identifier: p.Identifier, Condition: p.Condition, //nolint:gosec // ids fit
		RegistryName: p.RegistryName, Description: p.Description,
		SizeBytes: int32(p.Size), Sha256: p.SHA256, //nolint:gosec // at most MaxProfileBytes
		CreatedAt: timestamppb.New(p.CreatedAt),
	}
}
