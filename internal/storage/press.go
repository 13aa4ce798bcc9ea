package storage

import (
	"context"
	"fmt"
	"strings"

	"github.com/platen-print/platen/ent"
	"github.com/platen-print/platen/ent/outputprofile"
	"github.com/platen-print/platen/ent/predicate"
	"github.com/platen-print/platen/ent/printtemplate"
	"github.com/platen-print/platen/ent/productvariant"
	"github.com/platen-print/platen/ent/team"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/press"
)

// Press keeps teams' output profiles and default press settings.
type Press struct{ db *DB }

// Press returns the press settings' store.
func (db *DB) Press() *Press { return &Press{db: db} }

var _ press.Store = (*Press)(nil)

// CreateProfile stores p.
func (s *Press) CreateProfile(ctx context.Context, p *press.Profile) error {
	exists, err := s.db.read.Team.Query().Where(team.ID(p.TeamID)).Exist(ctx)
	if err != nil {
		return err
	}
	if !exists {
		return apierr.Invalid("team_id", "names no team (%d)", p.TeamID)
	}
	row, err := s.db.write.OutputProfile.Create().SetUID(p.UID).SetTeamID(p.TeamID).
		SetIdentifier(p.Identifier).SetCondition(p.Condition).SetRegistryName(p.RegistryName).
		SetDescription(p.Description).SetData(p.Data).SetSha256(p.SHA256).SetSize(p.Size).Save(ctx)
	if err != nil {
		return err
	}
	p.CreatedAt = row.CreatedAt.UTC()
	return nil
}

// profileColumns are a profile's columns but its file.
var profileColumns = []string{outputprofile.FieldID, outputprofile.FieldUID, outputprofile.FieldTeamID,
	outputprofile.FieldIdentifier, outputprofile.FieldCondition, outputprofile.FieldRegistryName,
	outputprofile.FieldDescription, outputprofile.FieldSha256, outputprofile.FieldSize, outputprofile.FieldCreatedAt}

// GetProfile returns the profile uid, without its file.
func (s *Press) GetProfile(ctx context.Context, uid string) (*press.Profile, error) {
	row, err := s.db.read.OutputProfile.Query().Where(outputprofile.UID(uid)).Select(profileColumns...).Only(ctx)
	if err != nil {
		return nil, notFound(err, "output profile %q not found", uid)
	}
	return profileFromRow(row), nil
}

// ListProfiles returns a page of profiles, newest first.
func (s *Press) ListProfiles(ctx context.Context, q press.Query) ([]*press.Profile, bool, error) {
	query := s.db.read.OutputProfile.Query()
	if q.TeamID != 0 {
		query = query.Where(outputprofile.TeamID(q.TeamID))
	}
	rows, err := query.Where(after[predicate.OutputProfile](q.After, outputprofile.FieldUID)).Order(ent.Desc(outputprofile.FieldCreatedAt), ent.Desc(outputprofile.FieldUID)).
		Limit(q.PageSize + 1).Select(profileColumns...).All(ctx)
	if err != nil {
		return nil, false, err
	}
	page, more := cutPage(rows, q.PageSize, profileFromRow)
	return page, more, nil
}

// DeleteProfile removes uid unless the team's default, a variant or a
// template names it; the check and the delete share a transaction, and
// writers of those settings check the profile exists in theirs.
func (s *Press) DeleteProfile(ctx context.Context, uid string) error {
	return s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		if err := profileUsers(ctx, tx.Client(), uid); err != nil {
			return err
		}
		n, err := tx.OutputProfile.Delete().Where(outputprofile.UID(uid)).Exec(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return press.NotFound(uid)
		}
		return nil
	})
}

// usersShown bounds the variants and templates a conflict names.
const usersShown = 10

// profileUsers is a conflict naming what names the profile uid, or nil.
func profileUsers(ctx context.Context, c *ent.Client, uid string) error {
	var users []string
	teams, err := c.Team.Query().Where(team.OutputProfileUID(uid)).Exist(ctx)
	if err != nil {
		return err
	}
	if teams {
		users = append(users, "the team's default press settings")
	}
	variants, err := c.ProductVariant.Query().Where(productvariant.OutputProfileUID(uid)).
		Order(ent.Asc(productvariant.FieldID)).Limit(usersShown).IDs(ctx)
	if err != nil {
		return err
	}
	if len(variants) > 0 {
		users = append(users, "product variants "+strings.Trim(fmt.Sprint(variants), "[]"))
	}
	tmpls, err := c.PrintTemplate.Query().Where(printtemplate.OutputProfileUID(uid)).
		Order(ent.Asc(printtemplate.FieldID)).Limit(usersShown).Select(printtemplate.FieldUID).Strings(ctx)
	if err != nil {
		return err
	}
	if len(tmpls) > 0 {
		users = append(users, "print templates "+strings.Join(tmpls, ", "))
	}
	if len(users) == 0 {
		return nil
	}
	return apierr.Conflict("profile_uid", "output profile %s is in use by %s: set their output_profile_id to another profile or null first",
		uid, strings.Join(users, "; "))
}

// ProfileData returns the team's profile uid with its file.
func (s *Press) ProfileData(ctx context.Context, teamID int, uid string) (*press.Profile, error) {
	row, err := s.db.read.OutputProfile.Query().Where(outputprofile.UID(uid), outputprofile.TeamID(teamID)).Only(ctx)
	if err != nil {
		return nil, notFound(err, "output profile %q not found", uid)
	}
	p := profileFromRow(row)
	p.Data = row.Data
	return p, nil
}

// TeamSettings returns the team's default settings.
func (s *Press) TeamSettings(ctx context.Context, teamID int) (press.Settings, error) {
	return teamSettings(ctx, s.db.read, teamID)
}

func teamSettings(ctx context.Context, c *ent.Client, teamID int) (press.Settings, error) {
	row, err := c.Team.Query().Where(team.ID(teamID)).
		Select(team.FieldOutputProfileUID, team.FieldMinEffectivePpi, team.FieldSafeMarginMm, team.FieldCutContourSpot,
			team.FieldAllowMissingGlyphs).
		Only(ctx)
	if err != nil {
		return press.Settings{}, notFound(err, "team %d not found", teamID)
	}
	return pressOf(row.OutputProfileUID, row.MinEffectivePpi, row.SafeMarginMm, row.CutContourSpot, row.AllowMissingGlyphs), nil
}

// UpdateTeamSettings changes the team's default settings in one
// transaction, so that two updates of different settings both stay.
func (s *Press) UpdateTeamSettings(ctx context.Context, teamID int, change func(*press.Settings) error) (press.Settings, error) {
	var settings press.Settings
	err := s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		var err error
		if settings, err = teamSettings(ctx, tx.Client(), teamID); err != nil {
			return err
		}
		if err := change(&settings); err != nil {
			return err
		}
		if err := checkProfileOf(ctx, tx.Client(), teamID, settings); err != nil {
			return err
		}
		u := tx.Team.UpdateOneID(teamID)
		setPress(u.Mutation(), settings)
		return u.Exec(ctx)
	})
	return settings, err
}

// pressMutation is a mutation of a row with press settings (PressMixin).
type pressMutation interface {
	SetOutputProfileUID(string)
	ClearOutputProfileUID()
	SetMinEffectivePpi(int)
	ClearMinEffectivePpi()
	SetSafeMarginMm(float64)
	ClearSafeMarginMm()
	SetCutContourSpot(string)
	ClearCutContourSpot()
	SetAllowMissingGlyphs(bool)
	ClearAllowMissingGlyphs()
}

// setPress writes s on m, clearing what s does not set.
func setPress(m pressMutation, s press.Settings) {
	setOrClearField(s.OutputProfileUID, m.SetOutputProfileUID, m.ClearOutputProfileUID)
	setOrClearField(s.MinEffectivePPI, m.SetMinEffectivePpi, m.ClearMinEffectivePpi)
	setOrClearField(s.SafeMarginMM, m.SetSafeMarginMm, m.ClearSafeMarginMm)
	setOrClearField(s.CutContourSpot, m.SetCutContourSpot, m.ClearCutContourSpot)
	setOrClearField(s.AllowMissingGlyphs, m.SetAllowMissingGlyphs, m.ClearAllowMissingGlyphs)
}

// checkProfileOf refuses settings naming a profile that is not teamID's.
func checkProfileOf(ctx context.Context, c *ent.Client, teamID int, s press.Settings) error {
	if s.OutputProfileUID == nil {
		return nil
	}
	ok, err := c.OutputProfile.Query().
		Where(outputprofile.UID(*s.OutputProfileUID), outputprofile.TeamID(teamID)).Exist(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return apierr.Invalid(press.FieldOutputProfileID, "names no output profile of team %d (%q); add one with POST /api/v1/operator/output-profiles",
			teamID, *s.OutputProfileUID)
	}
	return nil
}

// pressOf is a row's press settings (PressMixin's columns).
func pressOf(profile *string, ppi *int, margin *float64, spot *string, allowMissing *bool) press.Settings {
	return press.Settings{OutputProfileUID: profile, MinEffectivePPI: ppi, SafeMarginMM: margin, CutContourSpot: spot,
		AllowMissingGlyphs: allowMissing}
}

func profileFromRow(r *ent.OutputProfile) *press.Profile {
	return &press.Profile{
		UID: r.UID, TeamID: r.TeamID, Identifier: r.Identifier, Condition: r.Condition,
		RegistryName: r.RegistryName, Description: r.Description, SHA256: r.Sha256, Size: r.Size,
		CreatedAt: r.CreatedAt.UTC(),
	}
}
