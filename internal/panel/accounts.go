package panel

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/pagination"
)

// accountRoutes serves the staff's stores and tokens pages. Each page
// reads the teams first: the API refuses that to a team's operator, so
// they get its 403 and never a row.
func (p *Panel) accountRoutes() {
	p.mux.HandleFunc("GET /operator/stores", p.signedIn(p.storesPage))
	p.mux.HandleFunc("POST /operator/teams", p.signedIn(p.createTeam))
	p.mux.HandleFunc("POST /operator/stores", p.signedIn(p.createStore))
	p.mux.HandleFunc("GET /operator/tokens", p.signedIn(p.tokensPage))
	p.mux.HandleFunc("POST /operator/tokens", p.signedIn(p.issueToken))
	p.mux.HandleFunc("POST /operator/tokens/{id}/revoke", p.signedIn(p.revokeToken))
}

// storesPage lists the teams, with a form to create one, and a page of
// stores (of one team when asked), with a form to create one.
func (p *Panel) storesPage(w http.ResponseWriter, r *http.Request, s *session) {
	teams, err := p.allTeams(r.Context())
	if err != nil {
		p.fail(w, r, err)
		return
	}
	q := r.URL.Query()
	team, err := formTeam(q.Get("team_id"))
	if err != nil {
		p.fail(w, r, err)
		return
	}
	resp, err := p.api.ListStores(r.Context(), &platenv1.ListStoresRequest{TeamId: team, PageToken: q.Get("page_token")})
	if err != nil {
		p.fail(w, r, err)
		return
	}
	p.render(w, "stores", http.StatusOK, map[string]any{"Operator": s.account, "CSRF": s.csrf(), "Teams": teams,
		"Names": teamNames(teams), "Stores": resp.Stores, "TeamID": q.Get("team_id"), "Notice": notices[q.Get("done")],
		"Next": pageLink("/operator/stores", filterOf(q, "team_id"), resp.NextPageToken)})
}

func (p *Panel) createTeam(w http.ResponseWriter, r *http.Request, _ *session) {
	if _, err := p.api.CreateTeam(r.Context(), &platenv1.CreateTeamRequest{Name: strings.TrimSpace(r.PostFormValue("name"))}); err != nil {
		p.fail(w, r, err)
		return
	}
	redirect(w, r, "/operator/stores?done=team")
}

func (p *Panel) createStore(w http.ResponseWriter, r *http.Request, _ *session) {
	team, err := formTeam(r.PostFormValue("team_id"))
	if err == nil {
		_, err = p.api.CreateStore(r.Context(), &platenv1.CreateStoreRequest{StoreId: strings.TrimSpace(r.PostFormValue("store_id")), TeamId: team})
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	redirect(w, r, "/operator/stores?done=store")
}

// tokensPage lists the tokens, revoked ones too (of one team when asked),
// with the form to issue one; never a token's value.
func (p *Panel) tokensPage(w http.ResponseWriter, r *http.Request, s *session) {
	teams, err := p.allTeams(r.Context())
	if err != nil {
		p.fail(w, r, err)
		return
	}
	stores, err := p.allStores(r.Context())
	if err != nil {
		p.fail(w, r, err)
		return
	}
	q := r.URL.Query()
	team, err := formTeam(q.Get("team_id"))
	if err != nil {
		p.fail(w, r, err)
		return
	}
	resp, err := p.api.ListTokens(r.Context(), &platenv1.ListTokensRequest{TeamId: team, IncludeRevoked: true, PageToken: q.Get("page_token")})
	if err != nil {
		p.fail(w, r, err)
		return
	}
	p.render(w, "tokens", http.StatusOK, map[string]any{"Operator": s.account, "CSRF": s.csrf(), "Teams": teams,
		"Names": teamNames(teams), "Stores": stores, "Tokens": resp.Tokens, "TeamID": q.Get("team_id"),
		"Notice": notices[q.Get("done")], "Next": pageLink("/operator/tokens", filterOf(q, "team_id"), resp.NextPageToken)})
}

// issueToken issues a token and shows its value in this answer only: not
// in a URL, where a redirect would put it (and history and logs keep it),
// and never again, as the database keeps only its hash. The page is not
// cached (render says no-store).
func (p *Panel) issueToken(w http.ResponseWriter, r *http.Request, s *session) {
	team, err := formTeam(r.PostFormValue("team_id"))
	var issued *platenv1.IssueTokenResponse
	if err == nil {
		issued, err = p.api.IssueToken(r.Context(), &platenv1.IssueTokenRequest{TeamId: team,
			StoreId: strings.TrimSpace(r.PostFormValue("store_id")), Name: strings.TrimSpace(r.PostFormValue("name"))})
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	teams, _ := p.allTeams(r.Context()) // the team's name is a nicety: the token is shown whatever else fails
	p.render(w, "token", http.StatusOK, map[string]any{"Operator": s.account, "CSRF": s.csrf(), "Issued": issued, "Names": teamNames(teams)})
}

func (p *Panel) revokeToken(w http.ResponseWriter, r *http.Request, _ *session) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 32)
	if err != nil {
		p.failWith(w, r, http.StatusNotFound, "There is no such token.")
		return
	}
	if _, err := p.api.RevokeToken(r.Context(), &platenv1.RevokeTokenRequest{TokenId: int32(id)}); err != nil {
		p.fail(w, r, err)
		return
	}
	redirect(w, r, "/operator/tokens?done=revoke")
}

// allTeams reads every team, page by page: the pages name teams and offer
// them in forms. A team's operator is refused (PERMISSION_DENIED).
func (p *Panel) allTeams(ctx context.Context) ([]*platenv1.Team, error) {
	var all []*platenv1.Team
	for token := ""; ; {
		resp, err := p.api.ListTeams(ctx, &platenv1.ListTeamsRequest{PageSize: pagination.MaxSize, PageToken: token})
		if err != nil {
			return nil, err
		}
		all = append(all, resp.Teams...)
		if token = resp.NextPageToken; token == "" {
			return all, nil
		}
	}
}

// allStores reads every store the operator sees, page by page, for the
// token form's choice of store.
func (p *Panel) allStores(ctx context.Context) ([]*platenv1.Store, error) {
	var all []*platenv1.Store
	for token := ""; ; {
		resp, err := p.api.ListStores(ctx, &platenv1.ListStoresRequest{PageSize: pagination.MaxSize, PageToken: token})
		if err != nil {
			return nil, err
		}
		all = append(all, resp.Stores...)
		if token = resp.NextPageToken; token == "" {
			return all, nil
		}
	}
}

// teamNames maps team ids to names, for the tables.
func teamNames(teams []*platenv1.Team) map[int32]string {
	names := make(map[int32]string, len(teams))
	for _, t := range teams {
		names[t.Id] = t.Name
	}
	return names
}

// formTeam is a form's or query's team id; nil when it is empty.
func formTeam(value string) (*int32, error) {
	if value == "" {
		return nil, nil
	}
	n, err := strconv.ParseInt(value, 10, 32)
	if err != nil {
		return nil, apierr.Invalid("team_id", "must be a team's number, got %q", value)
	}
	team := int32(n)
	return &team, nil
}

// filterOf is the query's named values that are set, for a next page's link.
func filterOf(q url.Values, keys ...string) url.Values {
	out := url.Values{}
	for _, k := range keys {
		if v := q[k]; len(v) > 0 && v[0] != "" {
			out[k] = v[:1]
		}
	}
	return out
}
