package panel_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
)

// TestBatchingAgainAndThePreviewOfSheets: the form previews what a batch
// would print (its sheets, copies and items by order and item, making
// nothing), and the preview's sheet count is what the batch then prints;
// a print in a live batch says so in the list, and batching it again is
// refused, naming it and its batch, unless asked again (the form's box,
// or the preview's Make, which says it asks).
func TestBatchingAgainAndThePreviewOfSheets(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		staff := srv.Staff(t, "grace@example.com")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
		tmpl := batchable(t, srv, acme, staff.Token, "SRA3 cards")
		items := cards(t, srv, acme, "2001", 9) // 9 copies on 8 slots a sheet: 2 sheets

		br := newBrowser(t, srv.BaseURL)
		br.signIn(member.Email, member.Password)
		_, page := br.do("GET", "/operator/prints", nil)
		for _, want := range []string{`id="pick-all"`, `<output id="picked"`, `name="again" value="yes"`, `name="do" value="plan"`} {
			if !strings.Contains(page, want) {
				t.Fatalf("the batch form lacks %s:\n%s", want, page)
			}
		}
		csrf := csrfField.FindStringSubmatch(page)[1]
		form := func(items []string, extra ...string) url.Values {
			v := url.Values{"csrf": {csrf}, "order_items": items, "print_templates": {tmpl}, "back": {"/operator/prints"}}
			for i := 0; i+1 < len(extra); i += 2 {
				v.Set(extra[i], extra[i+1])
			}
			return v
		}

		resp, plan := br.do("POST", "/operator/batches", form(items, "do", "plan"))
		for _, want := range []string{"What the batch would print", "SRA3 cards: 2 sheets", "9 copies on 8 slots a sheet", `data-slot="8"`,
			`>2001 / 2001-1</a> × 1`, `>2001 / 2001-9</a> × 1`, "Make this batch"} {
			if resp.StatusCode != http.StatusOK || !strings.Contains(plan, want) {
				t.Fatalf("the preview (%d) lacks %q:\n%s", resp.StatusCode, want, plan)
			}
		}
		if strings.Contains(plan, `name="again"`) || strings.Contains(plan, "already in a batch") {
			t.Errorf("a preview of prints no batch holds asks to batch them again:\n%s", plan)
		}
		if _, list := br.do("GET", "/operator/batches", nil); !strings.Contains(list, "No batches.") {
			t.Errorf("the preview made a batch:\n%s", list)
		}

		resp, _ = br.do("POST", "/operator/batches", form(items))
		m := batchLocation.FindStringSubmatch(resp.Header.Get("Location"))
		if m == nil {
			t.Fatalf("the batch: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		first := m[1]
		waitBatch(t, br, first)
		made := srv.Do(t, "GET", "/api/v1/operator/batch-orders/"+first, member.Token, nil).Object(t)
		if pages := made["files"].([]any)[0].(map[string]any)["pages"]; pages != 2.0 {
			t.Errorf("the preview said 2 sheets; the batch printed %v", pages)
		}
		_, page = br.do("GET", "/operator/batches/"+first, nil)
		if !strings.Contains(page, `>2001 / 2001-1</a> × 1`) {
			t.Errorf("the batch's page does not name its items by order and item:\n%s", page)
		}

		_, list := br.do("GET", "/operator/prints", nil)
		if n := strings.Count(list, `<a class="badge batched" href="/operator/batches/`+first+`">in a batch</a>`); n != 9 {
			t.Errorf("%d prints say they are in the batch, want 9:\n%s", n, list)
		}

		more := cards(t, srv, acme, "2002", 1)
		twice := []string{items[0], more[0]}
		resp, page = br.do("POST", "/operator/batches", form(twice))
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, `>2001 / 2001-1</a>: is already in batch `+first) ||
			!strings.Contains(page, "batch prints already in a batch again") || strings.Contains(page, "2002 / 2002-1") {
			t.Errorf("batching a batched print without asking again: %d\n%s", resp.StatusCode, page)
		}
		_, plan = br.do("POST", "/operator/batches", form(twice, "do", "plan"))
		if !strings.Contains(plan, "1 of the prints is already in a batch") || !strings.Contains(plan, `<input type="hidden" name="again" value="yes">`) {
			t.Errorf("the preview of a batched print does not say so:\n%s", plan)
		}
		resp, _ = br.do("POST", "/operator/batches", form(twice, "again", "yes"))
		m = batchLocation.FindStringSubmatch(resp.Header.Get("Location"))
		if m == nil {
			t.Fatalf("asked again: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		poll.Until(t, 30*time.Second, "the newest batch shown", func() bool {
			_, list = br.do("GET", "/operator/prints", nil)
			return strings.Contains(list, `href="/operator/batches/`+m[1]+`">in a batch</a>`)
		})
	})
}
