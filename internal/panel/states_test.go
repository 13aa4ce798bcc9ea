package panel_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/platentest"
)

// TestOneStateVocabularyInThePanel: a Family A print whose render failed
// (processingfailed in its API) and a Family B one (failed in its) both
// read Failed, with the same badge, and the Failed filter finds both (and
// neither can be ticked for a batch);
// Needs attention counts them by state, linked to their lists, and once
// the A print is flagged lists it under Flagged, the B print under Failed;
// the legend says what each state means; a list with nothing that can
// change by itself asks for its rows every 30 s, not every 2.
func TestOneStateVocabularyInThePanel(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
		const bad = `{"width":50,"height":50,"layers":[{"type":"text","text":"hi","font":"Nope","size":12}]}`
		itemPrint := orderWith(t, srv, acme, "1001", bad)
		if r := srv.Do(t, "POST", "/api/v1/design-versions", acme.Token, map[string]any{"design_version_id": "broken-v1", "template_config": url.QueryEscape(bad)}); r.Status != http.StatusOK {
			t.Fatalf("design version: %d %s", r.Status, r.Raw)
		}
		r := srv.Do(t, "POST", "/v1/shop/orders", acme.Token, map[string]any{"external_id": "SO-1", "lines": []map[string]any{{"design_version_id": "broken-v1", "quantity": 1}}})
		if r.Status != http.StatusCreated {
			t.Fatalf("shop order: %d %s", r.Status, r.Raw)
		}
		shopPrint := r.Object(t)["data"].(map[string]any)["lines"].([]any)[0].(map[string]any)["prints"].([]any)[0].(map[string]any)["id"].(string)
		waitStatus(t, srv, member.Token, itemPrint, "processingfailed")
		waitStatus(t, srv, member.Token, shopPrint, "failed")

		br := newBrowser(t, srv.BaseURL)
		br.signIn(member.Email, member.Password)
		badge := func(page, id string) string {
			m := regexp.MustCompile(`<span class="badge (st-\w+)" data-print="` + id + `" data-state="(\w+)">(\w+)</span>`).FindStringSubmatch(page)
			if m == nil {
				return "none"
			}
			return strings.Join(m[1:], " ")
		}
		_, page := br.do("GET", "/operator/prints?state=failed", nil)
		for _, id := range []string{itemPrint, shopPrint} {
			if got := badge(page, id); got != "st-failed failed Failed" {
				t.Errorf("print %s in the Failed list: badge %q", id, got)
			}
		}
		if strings.Contains(page, `id="pick-`+itemPrint+`"`) {
			t.Errorf("a failed print can be ticked for a batch")
		}
		if !strings.Contains(page, `hx-trigger="every 30s"`) || strings.Contains(page, `hx-trigger="every 2s"`) {
			t.Errorf("a list of failed prints refreshes as if one were rendering:\n%s", page)
		}
		if !strings.Contains(page, "What the states mean") || !strings.Contains(page, "an operator failed it with a reason the client reads") {
			t.Errorf("no legend:\n%s", page)
		}
		if _, page := br.do("GET", "/operator/prints?state=ready", nil); strings.Contains(page, itemPrint) || strings.Contains(page, shopPrint) {
			t.Errorf("the Ready filter shows a failed print")
		}

		_, page = br.do("GET", "/operator/attention", nil)
		if !strings.Contains(page, `data-count="failed"><span class="badge st-failed">Failed: 2</span>`) || !strings.Contains(page, `href="/operator/prints?state=failed"`) {
			t.Errorf("the counts by state:\n%s", page)
		}
		csrf := csrfField.FindStringSubmatch(page)[1]
		if resp, page := br.do("POST", "/operator/prints/"+itemPrint+"/flag", url.Values{"reason": {"blurry"}, "csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("flag: %d %s", resp.StatusCode, page)
		}
		resp, page := br.do("GET", "/operator/attention", nil)
		flagged, failed := section(page, "flagged"), section(page, "failed")
		if resp.StatusCode != http.StatusOK || !strings.Contains(flagged, itemPrint) || strings.Contains(flagged, shopPrint) ||
			!strings.Contains(failed, shopPrint) || strings.Contains(failed, itemPrint) || !strings.Contains(flagged, "blurry") {
			t.Errorf("needs attention: %d\n%s", resp.StatusCode, page)
		}
		if _, page := br.do("GET", "/operator/prints/"+itemPrint, nil); !strings.Contains(page, `data-state="flagged">Flagged</span>`) {
			t.Errorf("the flagged print's page:\n%s", page)
		}
	})
}

// section is the part of a Needs attention page under the heading of
// state, up to the next heading.
func section(page, state string) string {
	_, after, ok := strings.Cut(page, `<h2 id="`+state+`">`)
	if !ok {
		return ""
	}
	before, _, _ := strings.Cut(after, "<h2")
	return before
}

// TestAPrintShowsItsFilesAndPreflight: a ready print whose text runs into
// the margin the cut may wander in shows the preflight's warning on its
// page, and a badge in the list; its file is listed with its size and its
// SHA-256, as the API gives them.
func TestAPrintShowsItsFilesAndPreflight(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
		id := orderWith(t, srv, acme, "1001", `{"width":50,"height":50,"layers":[{"type":"text","text":"edge","font":"Go-Regular","size":12,"x":0,"y":0,"width":30}]}`)
		waitStatus(t, srv, member.Token, id, "ready")
		api := srv.Do(t, "GET", "/api/v1/operator/prints/"+id, member.Token, nil).Object(t)
		file := api["files"].([]any)[0].(map[string]any)

		br := newBrowser(t, srv.BaseURL)
		br.signIn(member.Email, member.Password)
		_, page := br.do("GET", "/operator/prints/"+id, nil)
		if !strings.Contains(page, "Outside the safe area</span> layers[0]:") {
			t.Errorf("the print's page does not show its preflight warning (the API says %v):\n%s", api["warnings"], page)
		}
		if !strings.Contains(page, `<code class="digest">`+file["sha256"].(string)+`</code>`) || !regexp.MustCompile(`File 1</a>: PDF, 1 page, [0-9.]+ KB`).MatchString(page) {
			t.Errorf("the file's row (the API says %v):\n%s", file, page)
		}
		if _, list := br.do("GET", "/operator/prints", nil); !strings.Contains(list, `1 to check</span>`) {
			t.Errorf("no warning badge in the list:\n%s", list)
		}
	})
}
