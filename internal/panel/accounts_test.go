package panel_test

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
)

var (
	bearerCode = regexp.MustCompile(`<code class="token" id="bearer-token">([^<]+)</code>`)
	tokenRow   = regexp.MustCompile(`data-token="(\d+)"`)
)

// TestStaffKeepTeamsStoresAndTokensInThePanel: staff create a team (its
// hostile name shown as text) and a store of it, not without the form's
// token, a bad store id answered with the API's message; issue a token
// shown once, in the POST's own answer (not cached, not in a URL, not on
// the list), which works on the client API; and revoke it, after which
// the API refuses it within the revocation delay.
func TestStaffKeepTeamsStoresAndTokensInThePanel(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		srv.Bootstrap(t, "acme", "acme-shop")
		staff := srv.Staff(t, "grace@example.com")
		br := newBrowser(t, srv.BaseURL)
		br.signIn(staff.Email, staff.Password)
		resp, page := br.do("GET", "/operator/stores", nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, `data-store="acme-shop"`) || !strings.Contains(page, ">acme<") {
			t.Fatalf("the stores page: %d\n%s", resp.StatusCode, page)
		}
		csrf := csrfField.FindStringSubmatch(page)[1]

		hostile := `<b>Bolt</b> Prints`
		if resp, _ := br.do("POST", "/operator/teams", url.Values{"name": {hostile}}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("a team without the form's token: %d", resp.StatusCode)
		}
		if resp, _ := br.do("POST", "/operator/teams", url.Values{"name": {hostile}, "csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther ||
			resp.Header.Get("Location") != "/operator/stores?done=team" {
			t.Fatalf("creating a team: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		var team float64
		for _, tm := range srv.Do(t, "GET", "/api/v1/operator/teams", staff.Token, nil).Object(t)["teams"].([]any) {
			if tm.(map[string]any)["name"] == hostile {
				team = tm.(map[string]any)["id"].(float64)
			}
		}
		teamID := fmt.Sprint(team)
		if resp, page := br.do("POST", "/operator/stores", url.Values{"store_id": {"has space"}, "team_id": {teamID}, "csrf": {csrf}}); resp.StatusCode != http.StatusBadRequest ||
			!strings.Contains(page, "must be 1 to 128 letters") {
			t.Errorf("a bad store id: %d\n%s", resp.StatusCode, page)
		}
		if resp, _ := br.do("POST", "/operator/stores", url.Values{"store_id": {"bolt-shop"}, "team_id": {teamID}, "csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("creating a store: %d", resp.StatusCode)
		}
		_, page = br.do("GET", "/operator/stores?team_id="+teamID, nil)
		if !strings.Contains(page, html.EscapeString(hostile)) || strings.Contains(page, hostile) || !strings.Contains(page, `data-store="bolt-shop"`) ||
			strings.Contains(page, `data-store="acme-shop"`) {
			t.Errorf("the team's stores:\n%s", page)
		}

		if resp, _ := br.do("POST", "/operator/tokens", url.Values{"team_id": {teamID}, "name": {"x"}}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("a token without the form's token: %d", resp.StatusCode)
		}
		resp, page = br.do("POST", "/operator/tokens", url.Values{"team_id": {teamID}, "store_id": {"bolt-shop"}, "name": {"shop connection"}, "csrf": {csrf}})
		m := bearerCode.FindStringSubmatch(page)
		if resp.StatusCode != http.StatusOK || m == nil || !strings.HasPrefix(m[1], "plt_") || resp.Header.Get("Location") != "" ||
			resp.Header.Get("Cache-Control") != "no-store" || !strings.Contains(page, "it will not be shown again") {
			t.Fatalf("issuing a token: %d %v\n%s", resp.StatusCode, resp.Header, page)
		}
		bearer := m[1]
		order := map[string]any{"store_id": "bolt-shop", "ecommerce_order_id": "B-1", "items": []map[string]any{{
			"ecommerce_order_item_id": "B-1-1", "ecommerce_variant_id": "v", "quantity": 1, "template_config": "%7B%22width%22%3A10%2C%22height%22%3A10%2C%22layers%22%3A%5B%5D%7D",
			"thumbnails": []string{"https://example.com/t.png"}}}}
		if r := srv.Do(t, "POST", "/api/v1/orders", bearer, order); r.Status != http.StatusOK {
			t.Fatalf("the new token on the client API: %d %s", r.Status, r.Raw)
		}

		_, page = br.do("GET", "/operator/tokens", nil)
		row := tokenRow.FindStringSubmatch(page)
		if row == nil || strings.Contains(page, bearer) || !strings.Contains(page, bearer[:8]) || !strings.Contains(page, "shop connection") ||
			!strings.Contains(page, "Revoke") {
			t.Fatalf("the tokens:\n%s", page)
		}
		revoke := "/operator/tokens/" + row[1] + "/revoke"
		if resp, _ := br.do("POST", revoke, url.Values{}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("a revocation without the form's token: %d", resp.StatusCode)
		}
		if resp, _ := br.do("POST", revoke, url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/operator/tokens?done=revoke" {
			t.Fatalf("revoking: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		// The API's cache trusts an answer for RevocationDelay.
		poll.Until(t, auth.RevocationDelay+2*time.Second, "the revoked token refused", func() bool {
			return srv.Do(t, "GET", "/api/v1/orders", bearer, nil).Status == http.StatusUnauthorized
		})
		_, page = br.do("GET", "/operator/tokens?done=revoke", nil)
		if revoked := regexp.MustCompile(`(?s)data-token="` + row[1] + `">.*?</tr>`).FindString(page); revoked == "" || strings.Contains(revoked, "Revoke") ||
			!strings.Contains(page, "The token is revoked") {
			t.Errorf("the tokens after the revocation:\n%s", page)
		}
		if resp, _ := br.do("POST", "/operator/tokens/nine/revoke", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusNotFound {
			t.Errorf("revoking a token that is none: %d", resp.StatusCode)
		}
	})
}

// TestTeamOperatorsGetNoStoresOrTokensPage: a team's operator gets the
// API's 403 on the staff's pages and forms, and never a row of them.
func TestTeamOperatorsGetNoStoresOrTokensPage(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
		br := newBrowser(t, srv.BaseURL)
		br.signIn(member.Email, member.Password)
		_, page := br.do("GET", "/operator/webhooks", nil)
		if strings.Contains(page, `href="/operator/stores"`) {
			t.Error("a team's operator is offered the stores page")
		}
		csrf := csrfField.FindStringSubmatch(page)[1]
		team := fmt.Sprint(acme.TeamID)
		for _, call := range []struct {
			method, path string
			form         url.Values
		}{
			{"GET", "/operator/stores", nil},
			{"GET", "/operator/stores?team_id=" + team, nil},
			{"GET", "/operator/tokens", nil},
			{"POST", "/operator/teams", url.Values{"name": {"mine"}, "csrf": {csrf}}},
			{"POST", "/operator/stores", url.Values{"store_id": {"mine"}, "team_id": {team}, "csrf": {csrf}}},
			{"POST", "/operator/tokens", url.Values{"team_id": {team}, "name": {"mine"}, "csrf": {csrf}}},
			{"POST", "/operator/tokens/1/revoke", url.Values{"csrf": {csrf}}},
		} {
			resp, page := br.do(call.method, call.path, call.form)
			if resp.StatusCode != http.StatusForbidden || strings.Contains(page, "acme-shop") || strings.Contains(page, "plt_") || strings.Contains(page, "data-") {
				t.Errorf("%s %s: %d\n%s", call.method, call.path, resp.StatusCode, page)
			}
		}
		if n := len(srv.Do(t, "GET", "/api/v1/operator/stores", member.Token, nil).Object(t)["stores"].([]any)); n != 1 {
			t.Errorf("the API lists the team's own %d stores, want 1", n)
		}
	})
}
