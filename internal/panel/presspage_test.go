package panel_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/iccprofile"
	"github.com/platen-print/platen/internal/platentest"
)

// TestPressSettingsInThePanel: a team's operator adds an output profile
// (a file that is not one is refused on the page, with why), chooses it
// and sets a resolution below which prints fail, as the operator API then
// reads them; a value that is not a number is refused with the form as
// typed; emptying the fields puts the defaults back.
func TestPressSettingsInThePanel(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
		br := newBrowser(t, srv.BaseURL)
		br.signIn(member.Email, member.Password)
		_, page := br.do("GET", "/operator/press", nil)
		csrf := csrfField.FindStringSubmatch(page)[1]
		if !strings.Contains(page, "FOGRA39 (built in)") || !strings.Contains(page, "No output profiles") {
			t.Fatalf("the press page of a new team:\n%s", page)
		}
		if resp, page := br.upload("/operator/press/profiles", map[string]string{"csrf": csrf, "identifier": "FOGRA51"}, "file", "p.icc", []byte("not a profile")); resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, `class="problem" role="alert"`) {
			t.Fatalf("a file that is not a profile: %d\n%s", resp.StatusCode, page)
		}
		if resp, _ := br.upload("/operator/press/profiles", map[string]string{"csrf": csrf, "identifier": "House CMYK"}, "file", "p.icc", iccprofile.FOGRA39); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("a profile: %d", resp.StatusCode)
		}
		profiles := srv.Do(t, "GET", "/api/v1/operator/output-profiles", member.Token, nil).Object(t)["output_profiles"].([]any)
		if len(profiles) != 1 {
			t.Fatalf("profiles after the upload: %v", profiles)
		}
		uid := profiles[0].(map[string]any)["uid"].(string)
		if resp, page := br.do("POST", "/operator/press", url.Values{"csrf": {csrf}, "min_effective_ppi": {"lots"}}); resp.StatusCode != http.StatusBadRequest ||
			!strings.Contains(page, "min_effective_ppi") || !strings.Contains(page, `value="lots"`) {
			t.Errorf("a resolution that is not a number: %d\n%s", resp.StatusCode, page)
		}
		if resp, _ := br.do("POST", "/operator/press", url.Values{"csrf": {csrf}, "output_profile_id": {uid}, "min_effective_ppi": {"240"}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("saving the settings: %d", resp.StatusCode)
		}
		settings := srv.Do(t, "GET", "/api/v1/operator/teams/"+itoa(acme.TeamID)+"/press-settings", member.Token, nil)
		if got := settings.Object(t); got["output_profile_id"] != uid || got["min_effective_ppi"] != 240.0 {
			t.Errorf("the API reads %s", settings.Raw)
		}
		if _, page := br.do("GET", "/operator/press", nil); !strings.Contains(page, `<option value="`+uid+`" selected>House CMYK`) || !strings.Contains(page, `value="240"`) {
			t.Errorf("the page after saving:\n%s", page)
		}
		if resp, _ := br.do("POST", "/operator/press", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("emptying the settings: %d", resp.StatusCode)
		}
		if got := srv.Do(t, "GET", "/api/v1/operator/teams/"+itoa(acme.TeamID)+"/press-settings", member.Token, nil).Object(t); got["output_profile_id"] != nil || got["min_effective_ppi"] != nil {
			t.Errorf("the defaults are not back: %v", got)
		}
		if resp, _ := br.do("POST", "/operator/press/profiles/"+uid+"/delete", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("deleting the profile: %d", resp.StatusCode)
		}
		if left := srv.Do(t, "GET", "/api/v1/operator/output-profiles", member.Token, nil).Object(t)["output_profiles"].([]any); len(left) != 0 {
			t.Errorf("profiles after the delete: %v", left)
		}
	})
}
