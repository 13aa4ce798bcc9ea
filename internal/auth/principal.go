// Package auth owns API tokens and the caller's identity: how tokens look,
// how they are hashed, how a request's token becomes a Principal (cached, so
// the hot path costs no database round trip) and the gRPC interceptor that
// puts the Principal into the request context.
package auth

import (
	"context"

	"github.com/platen-print/platen/internal/apierr"
)

// Principal is who is calling: a client (a team, and the store its token is
// bound to), or an operator (staff, or one team's).
type Principal struct {
	TokenID int
	// TeamID is the client's team, or a team operator's; 0 for staff.
	TeamID int
	// StoreID is the store the token is bound to; empty for a team-wide token.
	StoreID string
	// OperatorID is the operator an operator token belongs to; 0 for a
	// client's token.
	OperatorID int
	Staff      bool
}

// IsOperator reports whether the caller is an operator.
func (p Principal) IsOperator() bool { return p.OperatorID != 0 }

// SeesTeam reports whether an operator sees teamID's data: staff see every
// team, a team's operator that team only.
func (p Principal) SeesTeam(teamID int) bool { return p.Staff || p.TeamID == teamID }

// CanUseStore reports whether the caller may act on storeID, given the
// store's team. A store-bound token acts on its own store only.
func (p Principal) CanUseStore(storeID string, storeTeamID int) bool {
	if storeTeamID != p.TeamID {
		return false
	}
	return p.StoreID == "" || p.StoreID == storeID
}

// SeesStore reports whether data of storeID is visible to the caller; the
// caller's team is checked by the query itself.
func (p Principal) SeesStore(storeID string) bool {
	return p.StoreID == "" || p.StoreID == storeID
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the caller, or a 401 error when the request carried no
// valid token (which the interceptor normally rules out first).
func FromContext(ctx context.Context) (Principal, error) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	if !ok {
		return Principal{}, apierr.Unauthenticated("missing bearer token")
	}
	return p, nil
}

// ListTeam is the team an operator's list covers: requested, when given
// and theirs to see (another is refused naming team_id), else their own
// (0, every team, for staff).
func (p Principal) ListTeam(requested *int32) (int, error) {
	switch {
	case requested == nil:
		return p.TeamID, nil
	case !p.SeesTeam(int(*requested)):
		return 0, apierr.PermissionDenied("team_id", "a team's operator sees their own team only")
	}
	return int(*requested), nil
}

// OwningTeam is the team a resource an operator adds belongs to: teamID,
// which staff must give and a team's operator may give only as their own,
// else the operator's team. purpose and action complete the messages:
// "is required for staff: the team whose " + purpose, and "a team's
// operator " + action + " for their own team only".
func (p Principal) OwningTeam(teamID *int32, purpose, action string) (int, error) {
	switch {
	case teamID == nil && p.Staff:
		return 0, apierr.Invalid("team_id", "is required for staff: the team whose %s", purpose)
	case teamID == nil:
		return p.TeamID, nil
	case !p.SeesTeam(int(*teamID)):
		return 0, apierr.PermissionDenied("team_id", "a team's operator %s for their own team only", action)
	}
	return int(*teamID), nil
}

// Visible reads uid with get, for the calling operator: a resource of a
// team they may not see is answered as notFound, the same as one that
// does not exist.
func Visible[T any](ctx context.Context, uid string, get func(context.Context, string) (T, error), teamOf func(T) int, notFound func(string) error) (T, error) {
	var none T
	p, err := OperatorFromContext(ctx)
	if err != nil {
		return none, err
	}
	v, err := get(ctx, uid)
	if err != nil {
		return none, err
	}
	if !p.SeesTeam(teamOf(v)) {
		return none, notFound(uid)
	}
	return v, nil
}

// OperatorFromContext is the calling operator; a client's token is
// refused (the interceptor already keeps it from the operator API).
func OperatorFromContext(ctx context.Context) (Principal, error) {
	p, err := FromContext(ctx)
	if err == nil && !p.IsOperator() {
		err = apierr.PermissionDenied("", "this API is for operator tokens")
	}
	return p, err
}
