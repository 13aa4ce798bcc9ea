package accounts_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
)

// TestStaffManageTeamsStoresAndTokens: staff create a team, a store and a
// token over the operator API; the token works on the client API at once
// and stops within 5 s of its revocation; lists page; every rule names its
// field; a team's operator is refused all of it.
func TestStaffManageTeamsStoresAndTokens(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		staffOp := srv.Staff(t, "grace@example.com")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
		staff := staffOp.Token
		post := func(path string, body map[string]any, status int) map[string]any {
			t.Helper()
			r := srv.Do(t, "POST", path, staff, body)
			if r.Status != status {
				t.Fatalf("POST %s: %d %s, want %d", path, r.Status, r.Raw, status)
			}
			return r.Object(t)
		}

		team := post("/api/v1/operator/teams", map[string]any{"name": "Bolt Prints"}, 200)
		teamID := team["id"]
		post("/api/v1/operator/teams", map[string]any{"name": "Bolt Prints"}, 409)
		store := post("/api/v1/operator/stores", map[string]any{"store_id": "bolt-shop", "team_id": teamID}, 200)
		if store["id"] != "bolt-shop" || store["team_id"] != teamID || store["webhook_url"] != nil {
			t.Errorf("store %v", store)
		}
		issued := post("/api/v1/operator/tokens", map[string]any{"team_id": teamID, "store_id": "bolt-shop", "name": "shop connection"}, 200)
		token := issued["token"].(map[string]any)
		bearer := issued["bearer_token"].(string)
		if !strings.HasPrefix(bearer, "plt_") || token["store_id"] != "bolt-shop" || token["name"] != "shop connection" ||
			!strings.HasPrefix(bearer, token["prefix"].(string)) || token["revoked_at"] != nil {
			t.Errorf("issued %v", issued)
		}
		order := map[string]any{"store_id": "bolt-shop", "ecommerce_order_id": "B-1", "items": []map[string]any{{
			"ecommerce_order_item_id": "B-1-1", "ecommerce_variant_id": "v", "quantity": 1, "template_config": "%7B%22width%22%3A10%2C%22height%22%3A10%2C%22layers%22%3A%5B%5D%7D",
			"thumbnails": []string{"https://example.com/t.png"}}}}
		if r := srv.Do(t, "POST", "/api/v1/orders", bearer, order); r.Status != http.StatusOK {
			t.Fatalf("the new token on the client API: %d %s", r.Status, r.Raw)
		}

		for _, tc := range []struct {
			path  string
			body  map[string]any
			field string
		}{
			{"/api/v1/operator/teams", map[string]any{}, "name"},
			{"/api/v1/operator/stores", map[string]any{"store_id": "has space", "team_id": teamID}, "store_id"},
			{"/api/v1/operator/stores", map[string]any{"store_id": "ok"}, "team_id"},
			{"/api/v1/operator/tokens", map[string]any{"name": "x"}, "team_id"},
		} {
			_, fields := platentest.ErrorBody(t, srv.Do(t, "POST", tc.path, staff, tc.body), http.StatusBadRequest)
			if !slices.Contains(fields, tc.field) {
				t.Errorf("POST %s %v: fields %v, want %s", tc.path, tc.body, fields, tc.field)
			}
		}
		platentest.ErrorBody(t, srv.Do(t, "POST", "/api/v1/operator/stores", staff, map[string]any{"store_id": "x", "team_id": 999}), http.StatusNotFound)
		platentest.ErrorBody(t, srv.Do(t, "POST", "/api/v1/operator/tokens", staff, map[string]any{"team_id": teamID, "store_id": "acme-shop"}), http.StatusNotFound)

		var teams []string
		next := ""
		for range 5 {
			r := srv.Do(t, "GET", "/api/v1/operator/teams?page_size=1&page_token="+next, staff, nil)
			for _, tm := range r.Object(t)["teams"].([]any) {
				teams = append(teams, tm.(map[string]any)["name"].(string))
			}
			if next = r.Object(t)["next_page_token"].(string); next == "" {
				break
			}
		}
		if !slices.Equal(teams, []string{"acme", "Bolt Prints"}) {
			t.Errorf("teams page by page: %v", teams)
		}
		stores := srv.Do(t, "GET", fmt.Sprintf("/api/v1/operator/stores?team_id=%v", teamID), staff, nil).Object(t)["stores"].([]any)
		if len(stores) != 1 || stores[0].(map[string]any)["id"] != "bolt-shop" {
			t.Errorf("the team's stores: %v", stores)
		}

		revoked := post(fmt.Sprintf("/api/v1/operator/tokens/%v/revoke", token["id"]), map[string]any{}, 200)
		if revoked["revoked_at"] == nil {
			t.Errorf("revoked %v", revoked)
		}
		if again := post(fmt.Sprintf("/api/v1/operator/tokens/%v/revoke", token["id"]), map[string]any{}, 200); again["revoked_at"] != revoked["revoked_at"] {
			t.Errorf("revoked twice: %v then %v", revoked["revoked_at"], again["revoked_at"])
		}
		poll.Until(t, 5*time.Second, "the revoked token refused", func() bool {
			return srv.Do(t, "GET", "/api/v1/orders", bearer, nil).Status == http.StatusUnauthorized
		})
		live := srv.Do(t, "GET", fmt.Sprintf("/api/v1/operator/tokens?team_id=%v", teamID), staff, nil).Object(t)["tokens"].([]any)
		all := srv.Do(t, "GET", fmt.Sprintf("/api/v1/operator/tokens?team_id=%v&include_revoked=true", teamID), staff, nil).Object(t)["tokens"].([]any)
		if len(live) != 0 || len(all) != 1 || strings.Contains(fmt.Sprint(all), bearer) {
			t.Errorf("tokens: live %v, all %v", live, all)
		}

		for _, path := range []string{"/api/v1/operator/teams", "/api/v1/operator/tokens"} { // stores: TestTeamOperatorsListTheirStores
			platentest.ErrorBody(t, srv.Do(t, "GET", path, member.Token, nil), http.StatusForbidden)
		}
		platentest.ErrorBody(t, srv.Do(t, "POST", "/api/v1/operator/tokens", member.Token, map[string]any{"team_id": acme.TeamID}), http.StatusForbidden)
		platentest.ErrorBody(t, srv.Do(t, "POST", "/api/v1/operator/stores", member.Token, map[string]any{"store_id": "mine", "team_id": acme.TeamID}), http.StatusForbidden)
	})
}

// TestTeamOperatorsListTheirStores: ListStores, over REST and gRPC, gives
// staff every team's stores (or one team's), and a team's operator their
// own team's only, naming their team or none; another team_id is
// PERMISSION_DENIED naming the field.
func TestTeamOperatorsListTheirStores(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme, other := srv.Bootstrap(t, "acme", "acme-shop"), srv.Bootstrap(t, "other", "other-shop")
		staff := srv.Staff(t, "grace@example.com")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
		if r := srv.Do(t, "POST", "/api/v1/operator/stores", staff.Token, map[string]any{"store_id": "acme-annex", "team_id": acme.TeamID}); r.Status != http.StatusOK {
			t.Fatalf("a second store: %d %s", r.Status, r.Raw)
		}
		ids := func(r *platentest.Response) []string {
			t.Helper()
			if r.Status != http.StatusOK {
				t.Fatalf("GET stores: %d %s", r.Status, r.Raw)
			}
			var out []string
			for _, st := range r.Object(t)["stores"].([]any) {
				out = append(out, st.(map[string]any)["id"].(string))
			}
			return out
		}
		for _, tc := range []struct {
			name, token, query string
			want               []string
		}{
			{"staff", staff.Token, "", []string{"acme-annex", "acme-shop", "other-shop"}},
			{"staff, one team", staff.Token, fmt.Sprintf("?team_id=%d", other.TeamID), []string{"other-shop"}},
			{"a team's operator", member.Token, "", []string{"acme-annex", "acme-shop"}},
			{"a team's operator, their team", member.Token, fmt.Sprintf("?team_id=%d", acme.TeamID), []string{"acme-annex", "acme-shop"}},
			{"a team's operator, a page", member.Token, "?page_size=1", []string{"acme-annex"}},
		} {
			if got := ids(srv.Do(t, "GET", "/api/v1/operator/stores"+tc.query, tc.token, nil)); !slices.Equal(got, tc.want) {
				t.Errorf("REST, %s: %v, want %v", tc.name, got, tc.want)
			}
		}
		_, fields := platentest.ErrorBody(t, srv.Do(t, "GET", fmt.Sprintf("/api/v1/operator/stores?team_id=%d", other.TeamID), member.Token, nil), http.StatusForbidden)
		if !slices.Contains(fields, "team_id") {
			t.Errorf("another team's stores: fields %v, want team_id", fields)
		}

		ops := platenv1.NewOperatorServiceClient(srv.GRPC(t))
		mine := platentest.Bearer(t.Context(), member.Token)
		own := int32(acme.TeamID) //nolint:gosec // a test's small id
		resp, err := ops.ListStores(mine, &platenv1.ListStoresRequest{})
		if err != nil || len(resp.Stores) != 2 || resp.Stores[0].Id != "acme-annex" || resp.Stores[1].Id != "acme-shop" || resp.Stores[1].TeamId != own {
			t.Errorf("gRPC, a team's operator: %v, %v", resp, err)
		}
		theirs := int32(other.TeamID) //nolint:gosec // a test's small id
		if _, err := ops.ListStores(mine, &platenv1.ListStoresRequest{TeamId: &theirs}); status.Code(err) != codes.PermissionDenied {
			t.Errorf("gRPC, another team's stores: %v", err)
		}
		if resp, err := ops.ListStores(platentest.Bearer(t.Context(), staff.Token), &platenv1.ListStoresRequest{TeamId: &theirs}); err != nil || len(resp.Stores) != 1 || resp.Stores[0].Id != "other-shop" {
			t.Errorf("gRPC, staff, one team: %v, %v", resp, err)
		}
		for name, call := range map[string]func() error{ // creating a store stays staff's, even in their own team
			"CreateStore": func() error {
				_, err := ops.CreateStore(mine, &platenv1.CreateStoreRequest{StoreId: "mine", TeamId: &own})
				return err
			},
			"ListTeams":  func() error { _, err := ops.ListTeams(mine, &platenv1.ListTeamsRequest{}); return err },
			"ListTokens": func() error { _, err := ops.ListTokens(mine, &platenv1.ListTokensRequest{}); return err },
		} {
			if err := call(); status.Code(err) != codes.PermissionDenied {
				t.Errorf("gRPC, a team's operator, %s: %v", name, err)
			}
		}
	})
}
