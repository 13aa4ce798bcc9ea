package panel_test

import (
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/platen-print/platen/internal/platentest"
)

// TestTemplatesInABrowser drives the print templates pages in chromium
// (browser/templates.test.js): a new template's drawing following the
// typing without a reload, an invalid value's message in its place, save,
// assign to a variant, the list, a phone-sized screen. Screenshots of the
// pages go to $PLATEN_SCREENSHOTS when set.
func TestTemplatesInABrowser(t *testing.T) {
	t.Parallel() // a browser test mostly waits (on the page's refreshes, a render): the four overlap
	chromium := needBrowser(t)
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		srv.Bootstrap(t, "other", "other-shop")
		tplVariant(t, srv, acme, "Mug", "white")
		cards := tplVariant(t, srv, acme, `Greeting card <img src=x onerror=alert(1)>`, "A6")
		staff := srv.Staff(t, "grace@example.com")
		name := `Twelve cards <script>alert(1)</script>`
		out := runScript(t, b, "templates.test.js", 8, map[string]string{"BASE": srv.BaseURL, "CHROMIUM": chromium,
			"STAFF_EMAIL": staff.Email, "STAFF_PASSWORD": staff.Password, "TEAM_ID": strconv.Itoa(acme.TeamID),
			"VARIANT_ID": strconv.Itoa(cards), "TEMPLATE_NAME": name}, nil)
		checkScreenshots(t, out, "templates", "template")

		// What the browser saved is what the API holds.
		list := srv.Do(t, "GET", "/api/v1/operator/print-templates", staff.Token, nil)
		tpls, _ := list.Object(t)["print_templates"].([]any)
		if list.Status != http.StatusOK || len(tpls) != 1 {
			t.Fatalf("templates: %d %s", list.Status, list.Raw)
		}
		tpl := tpls[0].(map[string]any)
		if tpl["name"] != name || tpl["grid"].(map[string]any)["columns"] != 3.0 || !slices.Equal(tpl["variant_ids"].([]any), []any{float64(cards)}) {
			t.Errorf("saved: %v", tpl)
		}
	})
}
