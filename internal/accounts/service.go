package accounts

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/pagination"
)

// Limits of names and ids.
const (
	maxName = 255
)

// storeIDPattern is what a store id may be: it stands in paths.
var storeIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,128}$`)

// Service is the operator API's teams, stores and tokens, for staff; a
// team's operator may list their team's stores, nothing more.
type Service struct{ reg Registry }

// NewService returns the service on reg.
func NewService(reg Registry) *Service { return &Service{reg: reg} }

// staff refuses every operator but staff.
func staff(ctx context.Context) error {
	p, err := auth.OperatorFromContext(ctx)
	if err == nil && !p.Staff {
		err = apierr.PermissionDenied("", "teams, stores and tokens are for staff operators")
	}
	return err
}

// ListTeams pages through the teams by id.
func (s *Service) ListTeams(ctx context.Context, req *platenv1.ListTeamsRequest) (*platenv1.ListTeamsResponse, error) {
	if err := staff(ctx); err != nil {
		return nil, err
	}
	teams, err := s.reg.ListTeams(ctx)
	if err != nil {
		return nil, err
	}
	list, next, err := page(teams, func(t *Team) string { return strconv.Itoa(t.ID) }, req.PageSize, req.PageToken)
	if err != nil {
		return nil, err
	}
	resp := &platenv1.ListTeamsResponse{Teams: make([]*platenv1.Team, len(list)), NextPageToken: next}
	for i, t := range list {
		resp.Teams[i] = teamProto(t)
	}
	return resp, nil
}

// CreateTeam creates a team; names are unique.
func (s *Service) CreateTeam(ctx context.Context, req *platenv1.CreateTeamRequest) (*platenv1.Team, error) {
	if err := staff(ctx); err != nil {
		return nil, err
	}
	if err := checkName("name", req.Name, true); err != nil {
		return nil, err
	}
	t, err := s.reg.CreateTeam(ctx, req.Name)
	if err != nil {
		return nil, err
	}
	return teamProto(t), nil
}

// ListStores pages through the stores by id, of one team when asked. A
// team's operator lists their own team's (the stores whose webhooks they
// manage); naming another team is refused, as in every operator list.
func (s *Service) ListStores(ctx context.Context, req *platenv1.ListStoresRequest) (*platenv1.ListStoresResponse, error) {
	p, err := auth.OperatorFromContext(ctx)
	if err != nil {
		return nil, err
	}
	team, err := p.ListTeam(req.TeamId)
	if err != nil {
		return nil, err
	}
	stores, err := s.reg.ListStores(ctx, team)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(stores, func(a, b *Store) int { return compare(a.ID, b.ID) })
	list, next, err := page(stores, func(st *Store) string { return st.ID }, req.PageSize, req.PageToken)
	if err != nil {
		return nil, err
	}
	resp := &platenv1.ListStoresResponse{Stores: make([]*platenv1.Store, len(list)), NextPageToken: next}
	for i, st := range list {
		resp.Stores[i] = storeProto(st)
	}
	return resp, nil
}

// CreateStore assigns a new store id to a team.
func (s *Service) CreateStore(ctx context.Context, req *platenv1.CreateStoreRequest) (*platenv1.Store, error) {
	if err := staff(ctx); err != nil {
		return nil, err
	}
	var vs apierr.Violations
	if !storeIDPattern.MatchString(req.StoreId) {
		vs.Add("store_id", "must be 1 to 128 letters, digits, dots, dashes or underscores, got %q", req.StoreId)
	}
	if req.TeamId == nil {
		vs.Add("team_id", "is required: the team the store belongs to")
	}
	if err := vs.Err(); err != nil {
		return nil, err
	}
	if err := s.teamExists(ctx, int(*req.TeamId)); err != nil {
		return nil, err
	}
	st, err := s.reg.CreateStore(ctx, int(*req.TeamId), req.StoreId)
	if err != nil {
		return nil, err
	}
	return storeProto(st), nil
}

// teamExists is a 404 naming a team that does not exist.
func (s *Service) teamExists(ctx context.Context, id int) error {
	teams, err := s.reg.ListTeams(ctx)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(teams, func(t *Team) bool { return t.ID == id }) {
		return apierr.NotFound("team %d not found", id)
	}
	return nil
}

// ListTokens pages through the tokens, newest first; never their values.
func (s *Service) ListTokens(ctx context.Context, req *platenv1.ListTokensRequest) (*platenv1.ListTokensResponse, error) {
	if err := staff(ctx); err != nil {
		return nil, err
	}
	tokens, err := s.reg.ListTokens(ctx, int(req.GetTeamId()))
	if err != nil {
		return nil, err
	}
	tokens = slices.DeleteFunc(tokens, func(t *Token) bool {
		return (!req.IncludeRevoked && t.RevokedAt != nil) || (req.StoreId != "" && (t.StoreID == nil || *t.StoreID != req.StoreId))
	})
	slices.Reverse(tokens)
	list, next, err := page(tokens, func(t *Token) string { return strconv.Itoa(t.ID) }, req.PageSize, req.PageToken)
	if err != nil {
		return nil, err
	}
	resp := &platenv1.ListTokensResponse{Tokens: make([]*platenv1.Token, len(list)), NextPageToken: next}
	for i, t := range list {
		resp.Tokens[i] = tokenProto(t)
	}
	return resp, nil
}

// IssueToken issues a token and answers its value, once.
func (s *Service) IssueToken(ctx context.Context, req *platenv1.IssueTokenRequest) (*platenv1.IssueTokenResponse, error) {
	if err := staff(ctx); err != nil {
		return nil, err
	}
	if req.TeamId == nil {
		return nil, apierr.Invalid("team_id", "is required: the team the token acts for")
	}
	if err := checkName("name", req.Name, false); err != nil {
		return nil, err
	}
	var store *string
	if req.StoreId != "" {
		store = &req.StoreId
	}
	value, t, err := s.reg.IssueToken(ctx, int(*req.TeamId), store, req.Name)
	if err != nil {
		return nil, err
	}
	return &platenv1.IssueTokenResponse{Token: tokenProto(t), BearerToken: value}, nil
}

// RevokeToken revokes a token; revoking a revoked one changes nothing.
func (s *Service) RevokeToken(ctx context.Context, req *platenv1.RevokeTokenRequest) (*platenv1.Token, error) {
	if err := staff(ctx); err != nil {
		return nil, err
	}
	match := func(t *Token) bool { return t.ID == int(req.TokenId) }
	t, err := s.token(ctx, 0, match)
	if err != nil {
		return nil, err
	}
	if t.RevokedAt == nil {
		if err := s.reg.RevokeToken(ctx, t.ID); err != nil {
			return nil, err
		}
		if t, err = s.token(ctx, t.TeamID, match); err != nil {
			return nil, err
		}
	}
	return tokenProto(t), nil
}

// token finds the token of team (0: any) that match accepts.
func (s *Service) token(ctx context.Context, team int, match func(*Token) bool) (*Token, error) {
	tokens, err := s.reg.ListTokens(ctx, team)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(tokens, match)
	if i < 0 {
		return nil, apierr.NotFound("token not found")
	}
	return tokens[i], nil
}

func checkName(field, name string, required bool) error {
	switch {
	case required && name == "":
		return apierr.Invalid(field, "is required")
	case utf8.RuneCountInString(name) > maxName:
		return apierr.Invalid(field, "must be at most %d characters", maxName)
	}
	return nil
}

// page is the page of list (in its order) after the token's key.
func page[T any](list []T, key func(T) string, size int32, token string) ([]T, string, error) {
	p, err := pagination.Parse(size, token)
	if err != nil {
		return nil, "", err
	}
	start := 0
	if p.After != nil {
		start = slices.IndexFunc(list, func(v T) bool { return key(v) == p.After.UID }) + 1
	}
	end := min(start+p.Size, len(list))
	next := ""
	if end < len(list) {
		next = pagination.Token(pagination.Cursor{UID: key(list[end-1])})
	}
	return list[start:end], next, nil
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func teamProto(t *Team) *platenv1.Team {
	return &platenv1.Team{Id: int32(t.ID), Name: t.Name, CreatedAt: timestamppb.New(t.CreatedAt)} //nolint:gosec // ids are small
}

func storeProto(st *Store) *platenv1.Store {
	out := &platenv1.Store{Id: st.ID, TeamId: int32(st.TeamID), CreatedAt: timestamppb.New(st.CreatedAt), //nolint:gosec // ids are small
		WebhookHealth: st.WebhookHealth(time.Now()), WebhookFailures: int32(st.WebhookFailures)} //nolint:gosec // a count of failures
	if st.WebhookURL != nil {
		out.WebhookUrl = wrapperspb.String(*st.WebhookURL)
	}
	if out.WebhookHealth == WebhookPaused {
		out.WebhookPausedUntil = timestamppb.New(*st.WebhookPausedUntil)
	}
	return out
}

func tokenProto(t *Token) *platenv1.Token {
	out := &platenv1.Token{Id: int32(t.ID), TeamId: int32(t.TeamID), Name: t.Name, Prefix: t.Prefix, //nolint:gosec // ids are small
		CreatedAt: timestamppb.New(t.CreatedAt)}
	if t.StoreID != nil {
		out.StoreId = wrapperspb.String(*t.StoreID)
	}
	if t.RevokedAt != nil {
		out.RevokedAt = timestamppb.New(*t.RevokedAt)
	}
	return out
}
