package panel_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
)

// cardVariant is the ecommerce variant id of the fixture's cards.
const cardVariant = "card-a6"

// card is a 140 × 100 mm design, one colour, that an A6 slot fits.
const card = `{"width":140,"height":100,"bleed":3,"layers":[{"type":"rect","x":-3,"y":-3,"width":146,"height":106,"fill":"#3366ff"}]}`

// batchable gives tenant's team an A6 card variant and an SRA3 print
// template of 2 × 4 A6 slots assigned to it, made by staff through the
// operator API, and returns the template's uid.
func batchable(t *testing.T, srv *platentest.Server, tenant platentest.Tenant, staffToken, name string) string {
	t.Helper()
	token := srv.TeamToken(t, tenant.TeamID)
	cat := srv.Do(t, "POST", "/api/v1/product-categories", token, map[string]any{"name": "Cards"})
	prod := srv.Do(t, "POST", "/api/v1/products", token, map[string]any{"category_id": cat.Object(t)["id"], "name": "Card",
		"order_column": 1, "active": true, "team_id": tenant.TeamID})
	v := srv.Do(t, "POST", "/api/v1/product-variants", token, map[string]any{"name": cardVariant, "product_id": prod.Object(t)["id"],
		"country_id": 276, "ecommerce_variant_ids": []string{cardVariant}})
	if v.Status != http.StatusOK {
		t.Fatalf("variant: %d %s", v.Status, v.Raw)
	}
	r := srv.Do(t, "POST", "/api/v1/operator/print-templates", staffToken, map[string]any{
		"team_id": tenant.TeamID, "name": name, "sheet_width_mm": 320, "sheet_height_mm": 450,
		"margin_top_mm": 5, "margin_right_mm": 5, "margin_bottom_mm": 5, "margin_left_mm": 5, "gap_mm": 6, "slot_bleed_mm": 2,
		"grid": map[string]any{"columns": 2, "rows": 4, "slot_width_mm": 148, "slot_height_mm": 105}, "crop_marks": true,
		"variant_ids": []any{v.Object(t)["id"]},
	})
	if r.Status != http.StatusOK {
		t.Fatalf("template: %d %s", r.Status, r.Raw)
	}
	return r.Object(t)["uid"].(string)
}

// cards creates an order of tenant of n card items, without print files,
// and returns the items' uids.
func cards(t *testing.T, srv *platentest.Server, tenant platentest.Tenant, orderID string, n int) []string {
	t.Helper()
	docs := make([]string, n)
	for i := range docs {
		docs[i] = card
	}
	return cardsOf(t, srv, tenant, orderID, docs...)
}

// cardsOf creates an order of tenant of one card item per design, without
// print files, and returns the items' uids.
func cardsOf(t *testing.T, srv *platentest.Server, tenant platentest.Tenant, orderID string, docs ...string) []string {
	t.Helper()
	items := make([]map[string]any, len(docs))
	for i, doc := range docs {
		items[i] = map[string]any{"ecommerce_order_item_id": orderID + "-" + strconv.Itoa(i+1), "ecommerce_variant_id": cardVariant, "quantity": 1,
			"template_config": url.QueryEscape(doc), "thumbnails": []string{"https://example.com/t.png"}}
	}
	r := srv.Do(t, "POST", "/api/v1/orders", tenant.Token, map[string]any{"store_id": tenant.StoreID, "ecommerce_order_id": orderID,
		"create_print_files": false, "items": items})
	if r.Status != http.StatusOK {
		t.Fatalf("order %s: %d %s", orderID, r.Status, r.Raw)
	}
	var uids []string
	for _, it := range r.Object(t)["items"].([]any) {
		uids = append(uids, it.(map[string]any)["uid"].(string))
	}
	return uids
}

var (
	batchLocation = regexp.MustCompile(`^/operator/batches/([0-9a-f-]{36})$`)
	sheetLink     = regexp.MustCompile(`<a class="sheet" href="([^"]+)"`)
)

// TestThePanelMakesAndShowsBatches: a team's operator ticks prints and a
// template on the prints list and makes a batch (the form's token
// required); refusals are shown entry by entry, client strings as text;
// the batch is on the list and its page, which turns Ready and links its
// sheet; another team's operator cannot see it; staff batch a team's
// prints once the list is filtered by that team, and must name one.
func TestThePanelMakesAndShowsBatches(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme, other := srv.Bootstrap(t, "acme", "acme-shop"), srv.Bootstrap(t, "other", "other-shop")
		staff := srv.Staff(t, "grace@example.com")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
		theirs := srv.TeamOperator(t, "lin@example.com", other.TeamID)
		tmpl := batchable(t, srv, acme, staff.Token, "SRA3 <b>cards</b>")
		items := cards(t, srv, acme, "1001", 3)

		br := newBrowser(t, srv.BaseURL)
		br.signIn(member.Email, member.Password)
		_, page := br.do("GET", "/operator/prints", nil)
		for _, want := range []string{`id="batch-form"`, `id="pick-` + items[0] + `"`, `value="` + tmpl + `"`, "SRA3 &lt;b&gt;cards&lt;/b&gt;"} {
			if !strings.Contains(page, want) {
				t.Fatalf("the prints list lacks %s:\n%s", want, page)
			}
		}
		csrf := csrfField.FindStringSubmatch(page)[1]
		form := func(items, tmpls []string, extra ...string) url.Values {
			v := url.Values{"csrf": {csrf}, "order_items": items, "print_templates": tmpls, "back": {"/operator/prints?family=A"}}
			for i := 0; i+1 < len(extra); i += 2 {
				v.Set(extra[i], extra[i+1])
			}
			return v
		}

		noToken := form(items[:1], []string{tmpl})
		noToken.Del("csrf")
		if resp, _ := br.do("POST", "/operator/batches", noToken); resp.StatusCode != http.StatusForbidden {
			t.Errorf("a batch without the form's token: %d", resp.StatusCode)
		}
		hostile := `<img src=x onerror=alert(1)>`
		for name, tc := range map[string]struct {
			form   url.Values
			status int
			want   []string
		}{
			"an item twice":      {form([]string{items[0], items[0]}, []string{tmpl}), 400, []string{"The print <a href=\"/operator/prints/" + items[0] + "\">1001 / 1001-1</a>: repeats order_items[0]"}},
			"no item ticked":     {form(nil, []string{tmpl}), 400, []string{"The selected prints: is required"}},
			"a hostile item uid": {form([]string{hostile}, []string{tmpl}), 404, []string{html.EscapeString(hostile), "not found"}},
			"no template ticked": {form(items[:1], nil), 400, []string{"The print templates: is required"}},
		} {
			resp, page := br.do("POST", "/operator/batches", tc.form)
			if resp.StatusCode != tc.status || !strings.Contains(page, "The batch was not made") || strings.Contains(page, hostile) ||
				!strings.Contains(page, `href="/operator/prints?family=A"`) {
				t.Errorf("%s: %d\n%s", name, resp.StatusCode, page)
				continue
			}
			for _, want := range tc.want {
				if !strings.Contains(page, want) {
					t.Errorf("%s: the page lacks %q:\n%s", name, want, page)
				}
			}
		}

		resp, _ := br.do("POST", "/operator/batches", form(items[:2], []string{tmpl}))
		m := batchLocation.FindStringSubmatch(resp.Header.Get("Location"))
		if resp.StatusCode != http.StatusSeeOther || m == nil {
			t.Fatalf("the batch: %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		uid := m[1]
		if _, list := br.do("GET", "/operator/batches", nil); !strings.Contains(list, `href="/operator/batches/`+uid+`"`) || !strings.Contains(list, `data-batch="`+uid+`"`) {
			t.Errorf("the list lacks the batch:\n%s", list)
		}
		page = waitBatch(t, br, uid)
		for _, want := range []string{">Ready<", "SRA3 &lt;b&gt;cards&lt;/b&gt;", tmpl, `href="/operator/prints/` + items[0] + `"`, `href="/operator/prints/` + items[1] + `"`} {
			if !strings.Contains(page, want) {
				t.Errorf("the batch's page lacks %s:\n%s", want, page)
			}
		}
		if strings.Contains(page, `href="/operator/prints/`+items[2]+`"`) || strings.Contains(page, "hx-trigger") {
			t.Errorf("the batch's page shows an item it has not, or still polls:\n%s", page)
		}
		if link := sheetLink.FindStringSubmatch(page); link == nil {
			t.Errorf("no sheet link:\n%s", page)
		} else if _, pdf := platentest.Download(t, html.UnescapeString(link[1])); !strings.HasPrefix(string(pdf), "%PDF") {
			t.Errorf("the sheet is not a PDF: %.20q", pdf)
		}

		// A batch that fails says why on its page, as text.
		broken := cardsOf(t, srv, acme, "1003", `{"width":140,"height":100,"layers":[{"type":"image","src":"http://127.0.0.1/<b>x</b>.png","x":0,"y":0,"width":140,"height":100}]}`)
		resp, _ = br.do("POST", "/operator/batches", form(broken, []string{tmpl}))
		if m = batchLocation.FindStringSubmatch(resp.Header.Get("Location")); m == nil {
			t.Fatalf("the broken batch: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		page = waitBatch(t, br, m[1])
		if !strings.Contains(page, ">Failed<") || !strings.Contains(page, `<p class="err" role="alert">The print 1003 / 1003-1: `) ||
			!strings.Contains(page, "&lt;b&gt;x&lt;/b&gt;") || strings.Contains(page, "<b>x") || strings.Contains(page, `class="sheet"`) {
			t.Errorf("the failed batch's page:\n%s", page)
		}

		// Another team's operator sees nothing of it.
		them := newBrowser(t, srv.BaseURL)
		them.signIn(theirs.Email, theirs.Password)
		if resp, _ := them.do("GET", "/operator/batches/"+uid, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("another team's batch: %d", resp.StatusCode)
		}
		if _, list := them.do("GET", "/operator/batches", nil); strings.Contains(list, uid) {
			t.Errorf("another team's list shows the batch")
		}
		if _, list := them.do("GET", "/operator/prints", nil); !strings.Contains(list, "The team has no print templates yet") {
			t.Errorf("a team without templates is not told so:\n%s", list)
		}

		// Staff: a team filter first, then the team's prints and templates.
		boss := newBrowser(t, srv.BaseURL)
		boss.signIn(staff.Email, staff.Password)
		if _, page := boss.do("GET", "/operator/prints", nil); strings.Contains(page, `id="pick-`) || !strings.Contains(page, "Choose a team in the filters first") {
			t.Errorf("staff without a team filter:\n%s", page)
		}
		_, page = boss.do("GET", "/operator/prints?team_id="+itoa(acme.TeamID), nil)
		if !strings.Contains(page, `id="pick-`+items[2]+`"`) || !strings.Contains(page, `name="team_id" value="`+itoa(acme.TeamID)+`"`) ||
			!strings.Contains(page, `<option value="`+itoa(acme.TeamID)+`" selected>acme (#`+itoa(acme.TeamID)+`)</option>`) {
			t.Fatalf("staff filtering by the team:\n%s", page)
		}
		csrf = csrfField.FindStringSubmatch(page)[1]
		if resp, page := boss.do("POST", "/operator/batches", form(items[2:], []string{tmpl})); resp.StatusCode != http.StatusBadRequest ||
			!strings.Contains(page, "The team: is required") {
			t.Errorf("staff naming no team: %d\n%s", resp.StatusCode, page)
		}
		if resp, page := boss.do("POST", "/operator/batches", form(items[2:], []string{tmpl}, "team_id", "acme")); resp.StatusCode != http.StatusBadRequest ||
			!strings.Contains(page, "The team: must be a team&#39;s number") {
			t.Errorf("a team id that is not one: %d\n%s", resp.StatusCode, page)
		}
		resp, _ = boss.do("POST", "/operator/batches", form(items[2:], []string{tmpl}, "team_id", itoa(acme.TeamID)))
		if resp.StatusCode != http.StatusSeeOther || batchLocation.FindStringSubmatch(resp.Header.Get("Location")) == nil {
			t.Fatalf("staff's batch: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		if _, list := boss.do("GET", "/operator/batches?team_id="+itoa(other.TeamID), nil); strings.Contains(list, uid) || !strings.Contains(list, "No batches.") {
			t.Errorf("staff's list of another team shows acme's batch:\n%s", list)
		}
		if _, list := boss.do("GET", "/operator/batches?team_id="+itoa(acme.TeamID), nil); !strings.Contains(list, uid) {
			t.Errorf("staff's list of the team lacks its batch:\n%s", list)
		}
	})
}

// waitBatch reads the batch's page until it is no longer Batching, and
// returns it.
func waitBatch(t *testing.T, br *browser, uid string) string {
	t.Helper()
	var page string
	// The sheet renders in its own process, under -race on two cores.
	poll.Until(t, 90*time.Second, "batch "+uid+" done", func() bool {
		var resp *http.Response
		resp, page = br.do("GET", "/operator/batches/"+uid, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("the batch's page: %d\n%s", resp.StatusCode, page)
		}
		return !strings.Contains(page, ">Batching<")
	})
	return page
}

func itoa(n int) string { return strconv.Itoa(n) }
