package panel_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/platentest"
)

// TestAPrintPageSaysOnlyItsOwnNotices: a print page's done= showed any
// text a link carried, on a page staff trust ("Done: your session expired,
// sign in at evil.example."); now it names one of the page's own notices,
// and anything else shows nothing.
func TestAPrintPageSaysOnlyItsOwnNotices(t *testing.T) {
	srv := platentest.Start(t, platentest.SQLite())
	acme := srv.Bootstrap(t, "acme", "acme-shop")
	member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
	id := order(t, srv, acme, "1001")
	br := newBrowser(t, srv.BaseURL)
	br.signIn("ada@example.com", member.Password)

	phishing := "your session expired, sign in again at evil.example"
	for _, done := range []string{phishing, "Retry queued.", "<b>x</b>"} {
		resp, page := br.do("GET", "/operator/prints/"+id+"?done="+url.QueryEscape(done), nil)
		if resp.StatusCode != http.StatusOK || strings.Contains(page, `class="notice"`) || strings.Contains(page, "evil.example") {
			t.Errorf("done=%q: %d, the page shows a notice:\n%s", done, resp.StatusCode, page)
		}
	}
	resp, page := br.do("GET", "/operator/prints/"+id+"?done=retry", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, "Retry queued.") {
		t.Errorf("done=retry: %d, no notice", resp.StatusCode)
	}
	csrf := csrfField.FindStringSubmatch(page)[1]
	resp, _ = br.do("POST", "/operator/prints/"+id+"/flag", url.Values{"csrf": {csrf}, "reason": {"blurry"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("flag: %d", resp.StatusCode)
	}
	if _, page := br.do("GET", resp.Header.Get("Location"), nil); !strings.Contains(page, "Issue flagged") {
		t.Errorf("after flagging, %s shows no notice", resp.Header.Get("Location"))
	}
}
