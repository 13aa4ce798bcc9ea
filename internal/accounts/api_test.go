package accounts_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/operators"
	"github.com/platen-print/platen/internal/platentest"
)

// TestStaffManageTeamsStoresAndTokens: staff create a team, a store and a
// token over the operator API; the token works on the client API at once
// and stops within 5 s of its revocation; lists page; every rule names its
// field; a team's operator is refused all of it.
func TestStaffManageTeamsStoresAndTokens(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		staffOp, err := operators.Create(t.Context(), srv.DB().Operators(), "grace@example.com", "", true, nil)
		if err != nil {
			t.Fatal(err)
		}
		member, err := operators.Create(t.Context(), srv.DB().Operators(), "ada@example.com", "", false, &acme.TeamID)
		if err != nil {
			t.Fatal(err)
		}
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
			"ecommerce_order_item_id": "B-1-1", "ecommerce_variant_id": "v", "quantity": 1, "template_config": "%7B%7D",
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
		deadline := time.Now().Add(5 * time.Second)
		for srv.Do(t, "GET", "/api/v1/orders", bearer, nil).Status != http.StatusUnauthorized {
			if time.Now().After(deadline) {
				t.Fatal("the revoked token still works after 5 s")
			}
			time.Sleep(100 * time.Millisecond)
		}
		live := srv.Do(t, "GET", fmt.Sprintf("/api/v1/operator/tokens?team_id=%v", teamID), staff, nil).Object(t)["tokens"].([]any)
		all := srv.Do(t, "GET", fmt.Sprintf("/api/v1/operator/tokens?team_id=%v&include_revoked=true", teamID), staff, nil).Object(t)["tokens"].([]any)
		if len(live) != 0 || len(all) != 1 || strings.Contains(fmt.Sprint(all), bearer) {
			t.Errorf("tokens: live %v, all %v", live, all)
		}

		for _, path := range []string{"/api/v1/operator/teams", "/api/v1/operator/stores", "/api/v1/operator/tokens"} {
			platentest.ErrorBody(t, srv.Do(t, "GET", path, member.Token, nil), http.StatusForbidden)
		}
		platentest.ErrorBody(t, srv.Do(t, "POST", "/api/v1/operator/tokens", member.Token, map[string]any{"team_id": acme.TeamID}), http.StatusForbidden)
	})
}
