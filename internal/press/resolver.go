package press

import (
	"context"
	"errors"
	"fmt"
	"sync"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/apierr"
)

// cachedProfiles bounds the profiles a Resolver keeps in memory. A
// profile never changes under its uid (they are immutable), so a kept one
// is never stale; a team uses a handful.
const cachedProfiles = 32

// Resolver turns a level's settings (a variant's, a template's, or none)
// over its team's default into a render request's press settings.
type Resolver struct {
	store Store

	mu       sync.Mutex
	profiles map[string]*renderv1.OutputIntent // by uid
}

// NewResolver returns a resolver on store.
func NewResolver(store Store) *Resolver {
	return &Resolver{store: store, profiles: map[string]*renderv1.OutputIntent{}}
}

// Resolved are a render's press settings: nil settings are the
// built-in defaults.
type Resolved struct {
	Settings
	// Intent is the output profile's, with its file; nil for FOGRA39.
	Intent *renderv1.OutputIntent
}

// Resolve returns level's settings over teamID's default. A nil Resolver
// resolves the built-in defaults.
func (r *Resolver) Resolve(ctx context.Context, teamID int, level Settings) (Resolved, error) {
	if r == nil {
		return Resolved{Settings: level}, nil
	}
	team, err := r.store.TeamSettings(ctx, teamID)
	if errors.Is(err, apierr.ErrNotFound) {
		team = Settings{} // a team removed under its prints: nothing to add
	} else if err != nil {
		return Resolved{}, fmt.Errorf("press settings: %w", err)
	}
	out := Resolved{Settings: level.Over(team)}
	if uid := out.OutputProfileUID; uid != nil {
		if out.Intent, err = r.intent(ctx, teamID, *uid); err != nil {
			return Resolved{}, err
		}
	}
	return out, nil
}

// intent is the output intent of the team's profile uid, from the cache or
// the store.
func (r *Resolver) intent(ctx context.Context, teamID int, uid string) (*renderv1.OutputIntent, error) {
	r.mu.Lock()
	in, ok := r.profiles[uid]
	r.mu.Unlock()
	if ok {
		return in, nil
	}
	p, err := r.store.ProfileData(ctx, teamID, uid)
	if err != nil {
		return nil, fmt.Errorf("output profile %s: %w", uid, err)
	}
	in = &renderv1.OutputIntent{Profile: p.Data, Sha256: p.SHA256, Identifier: p.Identifier,
		Condition: p.Condition, RegistryName: p.RegistryName, Info: p.Description}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.profiles) >= cachedProfiles {
		for k := range r.profiles { // any one: a miss costs one read
			delete(r.profiles, k)
			break
		}
	}
	r.profiles[uid] = in
	return in, nil
}

// Apply sets the press fields of a render's settings.
func (s Resolved) Apply(out *renderv1.PrintSettings) {
	out.OutputIntent = s.Intent
	if s.CutContourSpot != nil {
		out.CutContourSpot = *s.CutContourSpot
	}
	if s.MinEffectivePPI != nil {
		out.MinEffectivePpi = uint32(*s.MinEffectivePPI) //nolint:gosec // 1 to designdoc.MaxDPI
	}
	if s.SafeMarginMM != nil {
		out.SafeMarginMm = *s.SafeMarginMM
	}
	if s.AllowMissingGlyphs != nil {
		out.AllowMissingGlyphs = *s.AllowMissingGlyphs
	}
}
