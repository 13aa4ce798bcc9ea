package cli_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/platentest/poll"
)

// createdOperator is what `platen admin operator create` prints.
type createdOperator struct {
	OperatorID int    `json:"operator_id"`
	Email      string `json:"email"`
	Staff      bool   `json:"staff"`
	TeamID     *int   `json:"team_id"`
	Password   string `json:"password"`
	Token      string `json:"token"`
}

// TestOperatorAccounts: `platen admin operator create|token|revoke` beside
// a running serve; an operator token reaches the operator API and not the
// client API, a client token the reverse, and a revoked operator token
// nothing within 5 s.
func TestOperatorAccounts(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	client := bootstrap(t, nil, "--data-dir", dataDir, "--team", "acme", "--store", "acme-shop")
	s := serve(t, dataDir)

	r := runOK(t, nil, "admin", "operator", "create", "--data-dir", dataDir, "--email", "Grace@Example.com", "--name", "Grace", "--staff")
	var raw map[string]json.RawMessage
	decodeOne(t, r, &raw)
	got := keys(raw)
	slices.Sort(got)
	if want := []string{"email", "operator_id", "password", "staff", "team_id", "token"}; !slices.Equal(got, want) {
		t.Errorf("operator create printed keys %v, want exactly %v", keys(raw), want)
	}
	var staff createdOperator
	decodeOne(t, r, &staff)
	if staff.OperatorID <= 0 || staff.Email != "grace@example.com" || !staff.Staff || staff.TeamID != nil ||
		len(staff.Password) < 20 || !strings.HasPrefix(staff.Token, "plo_") {
		t.Errorf("operator create printed %+v", staff)
	}
	var member createdOperator
	decodeOne(t, runOK(t, nil, "admin", "operator", "create", "--data-dir", dataDir, "--email", "ada@example.com", "--team", "acme"), &member)
	if member.Staff || member.TeamID == nil || *member.TeamID != client.TeamID {
		t.Errorf("team operator %+v; want team %d", member, client.TeamID)
	}
	if r := run(t, nil, "admin", "operator", "create", "--data-dir", dataDir, "--email", "grace@example.com", "--staff"); r.code == 0 || !strings.Contains(r.stderr, "exists") {
		t.Errorf("a second account for one e-mail: %v", r)
	}
	if r := run(t, nil, "admin", "operator", "create", "--data-dir", dataDir, "--email", "x@example.com", "--staff", "--team", "acme"); r.code == 0 {
		t.Errorf("--staff with --team: %v", r)
	}

	// Each kind of token to its own API: 403 across, 401 without.
	for _, tc := range []struct {
		name, path, token string
		status            int
	}{
		{"operator token, operator API", "/api/v1/operator/teams", staff.Token, http.StatusOK},
		{"client token, operator API", "/api/v1/operator/teams", client.Token, http.StatusForbidden},
		{"no token, operator API", "/api/v1/operator/teams", "", http.StatusUnauthorized},
		{"operator token, client API", "/api/v1/orders?store_id=acme-shop", staff.Token, http.StatusForbidden},
		{"client token, client API", "/api/v1/orders?store_id=acme-shop", client.Token, http.StatusOK},
	} {
		if got := do(t, "GET", s.baseURL+tc.path, tc.token, ""); got.status != tc.status {
			t.Errorf("%s: %d %s; want %d", tc.name, got.status, got.body, tc.status)
		}
	}

	var another struct {
		TokenID int    `json:"token_id"`
		Token   string `json:"token"`
	}
	decodeOne(t, runOK(t, nil, "admin", "operator", "token", "--data-dir", dataDir, "--email", "GRACE@example.com"), &another)
	if !strings.HasPrefix(another.Token, "plo_") || another.Token == staff.Token {
		t.Fatalf("operator token printed %+v", another)
	}
	if got := do(t, "GET", s.baseURL+"/api/v1/operator/teams", another.Token, ""); got.status != http.StatusOK {
		t.Errorf("the second token: %d %s", got.status, got.body)
	}
	runOK(t, nil, "admin", "operator", "revoke", "--data-dir", dataDir, strconv.Itoa(another.TokenID))
	var answer response
	if !poll.Within(revocationLimit, nil, func() bool {
		answer = do(t, "GET", s.baseURL+"/api/v1/operator/teams", another.Token, "")
		return answer.status == http.StatusUnauthorized
	}) {
		t.Fatalf("a revoked operator token still answered %d after %v", answer.status, revocationLimit)
	}
	if got := do(t, "GET", s.baseURL+"/api/v1/operator/teams", staff.Token, ""); got.status != http.StatusOK {
		t.Errorf("the first token after the second was revoked: %d", got.status)
	}
}
