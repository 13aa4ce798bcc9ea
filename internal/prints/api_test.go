package prints_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/platentest"
)

const (
	goodDoc = `{"width":50,"height":50,"layers":[{"type":"rect","x":0,"y":0,"width":50,"height":50,"fill":"#3030c0"}]}`
	badDoc  = `{"width":50,"height":50,"layers":[{"type":"text","text":"hi","font":"Nope","size":12}]}`
)

// fixture is two teams, each with a Family A order of a good and a bad
// item, and acme with a Family B order of one line; a staff operator and
// one of acme's.
type fixture struct {
	srv                *platentest.Server
	acme, other        platentest.Tenant
	staff, member      string
	good, bad, theirs  string // Family A print ids (item uids)
	shopPrint, shopRef string
}

func setup(t *testing.T, b platentest.Backend) *fixture {
	t.Helper()
	f := &fixture{srv: platentest.StartWith(t, b, func(c *config.Config) { c.AllowPrivateNetwork = true })}
	f.acme, f.other = f.srv.Bootstrap(t, "acme", "acme-shop"), f.srv.Bootstrap(t, "other", "other-shop")
	staff := f.srv.Staff(t, "grace@example.com")
	member := f.srv.TeamOperator(t, "ada@example.com", f.acme.TeamID)
	f.staff, f.member = staff.Token, member.Token
	items := f.order(t, f.acme, "1001", goodDoc, badDoc)
	f.good, f.bad = items[0], items[1]
	f.theirs = f.order(t, f.other, "9001", goodDoc)[0]
	if r := f.srv.Do(t, "POST", "/api/v1/design-versions", f.acme.Token, map[string]any{"design_version_id": "sticker-v1", "template_config": url.QueryEscape(goodDoc)}); r.Status != http.StatusOK {
		t.Fatalf("design version: %d %s", r.Status, r.Raw)
	}
	r := f.srv.Do(t, "POST", "/v1/shop/orders", f.acme.Token, map[string]any{"external_id": "SO-1", "lines": []map[string]any{{"design_version_id": "sticker-v1", "quantity": 3}}})
	if r.Status != http.StatusCreated {
		t.Fatalf("shop order: %d %s", r.Status, r.Raw)
	}
	data := r.Object(t)["data"].(map[string]any)
	f.shopRef = data["reference_number"].(string)
	f.shopPrint = data["lines"].([]any)[0].(map[string]any)["prints"].([]any)[0].(map[string]any)["id"].(string)
	f.settle(t, f.good, f.bad, f.theirs, f.shopPrint)
	return f
}

// order creates an order rendering one item per document; it returns the
// items' uids.
func (f *fixture) order(t *testing.T, tenant platentest.Tenant, id string, docs ...string) []string {
	t.Helper()
	var items []map[string]any
	for i, doc := range docs {
		items = append(items, map[string]any{"ecommerce_order_item_id": fmt.Sprintf("%s-%d", id, i+1), "ecommerce_variant_id": "v",
			"quantity": 1, "template_config": url.QueryEscape(doc), "thumbnails": []string{"https://example.com/t.png"}})
	}
	r := f.srv.Do(t, "POST", "/api/v1/orders", tenant.Token, map[string]any{"store_id": tenant.StoreID, "ecommerce_order_id": id,
		"create_print_files": true, "items": items})
	if r.Status != http.StatusOK {
		t.Fatalf("order %s: %d %s", id, r.Status, r.Raw)
	}
	var uids []string
	for _, it := range r.Object(t)["items"].([]any) {
		uids = append(uids, it.(map[string]any)["uid"].(string))
	}
	return uids
}

// get reads a print through the operator API as staff.
func (f *fixture) get(t *testing.T, id string) map[string]any {
	t.Helper()
	r := f.srv.Do(t, "GET", "/api/v1/operator/prints/"+id, f.staff, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("get print %s: %d %s", id, r.Status, r.Raw)
	}
	return r.Object(t)
}

// settle waits until each print has finished rendering.
func (f *fixture) settle(t *testing.T, ids ...string) {
	t.Helper()
	for _, id := range ids {
		f.srv.WaitFor(t, platentest.PrintTimeout, "print "+id+" rendered", func() bool {
			s := f.get(t, id)["status"]
			return s != "received" && s != "processing"
		})
	}
}

// ids lists the print ids of a list answer.
func ids(t *testing.T, r *platentest.Response) []string {
	t.Helper()
	if r.Status != http.StatusOK {
		t.Fatalf("list: %d %s", r.Status, r.Raw)
	}
	var out []string
	for _, p := range r.Object(t)["prints"].([]any) {
		out = append(out, p.(map[string]any)["id"].(string))
	}
	return out
}

// TestListingAndReadingPrints: both families in one list, newest first,
// filtered and searched by any reference, paged; a team's operator sees
// their team only, and another team's print is 404 to them.
func TestListingAndReadingPrints(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		f := setup(t, b)
		all := ids(t, f.srv.Do(t, "GET", "/api/v1/operator/prints", f.staff, nil))
		if want := []string{f.theirs, f.shopPrint, f.good, f.bad}; !sameSet(all, want) {
			t.Errorf("staff list %v, want %v", all, want)
		}
		newest := f.get(t, all[0])["created_at"].(string)
		mine := ids(t, f.srv.Do(t, "GET", "/api/v1/operator/prints", f.member, nil))
		if slices.Contains(mine, f.theirs) || len(mine) != 3 {
			t.Errorf("team operator list %v", mine)
		}
		for query, want := range map[string][]string{
			"family=B":                         {f.shopPrint},
			"family=A&status=processingfailed": {f.bad},
			"status=ready":                     {f.good, f.shopPrint, f.theirs},
			"query=1001":                       {f.good, f.bad},
			"query=1001-2":                     {f.bad},
			"query=" + f.shopRef:               {f.shopPrint},
			"query=SO-1":                       {f.shopPrint},
			"query=sticker-v1":                 {f.shopPrint},
			"query=" + f.good:                  {f.good},
			"query=9001":                       {f.theirs},
			"query=9001&team_id=" + fmt.Sprint(f.acme.TeamID):                        nil,
			"store_id=other-shop":                                                    {f.theirs},
			"store_id=acme-shop&family=B":                                            {f.shopPrint},
			"created_after=2000-01-01T00:00:00Z&created_before=2100-01-01T00:00:00Z": all,
			"created_after=2100-01-01T00:00:00Z":                                     nil,
			"created_after=" + url.QueryEscape(newest):                               {all[0]},
			"created_before=" + url.QueryEscape(newest):                              all[1:],
		} {
			if got := ids(t, f.srv.Do(t, "GET", "/api/v1/operator/prints?"+query, f.staff, nil)); !sameSet(got, want) {
				t.Errorf("?%s: %v, want %v", query, got, want)
			}
		}
		for query, field := range map[string]string{
			"created_after=2026-02-01T00:00:00Z&created_before=2026-01-01T00:00:00Z": "created_before",
			"created_after=yesterday": "created_after",
		} {
			msg, fields := platentest.ErrorBody(t, f.srv.Do(t, "GET", "/api/v1/operator/prints?"+query, f.staff, nil), http.StatusBadRequest)
			if !strings.Contains(msg, field) && !slices.Contains(fields, field) {
				t.Errorf("?%s: %q %v does not name %s", query, msg, fields, field)
			}
		}
		var paged []string
		token := ""
		for range 10 {
			r := f.srv.Do(t, "GET", "/api/v1/operator/prints?page_size=1&page_token="+token, f.staff, nil)
			paged = append(paged, ids(t, r)...)
			if token = r.Object(t)["next_page_token"].(string); token == "" {
				break
			}
		}
		if !slices.Equal(paged, all) {
			t.Errorf("pages of one %v, want the list %v", paged, all)
		}

		got := f.get(t, f.shopPrint)
		files := got["files"].([]any)
		if got["family"] != "B" || got["status"] != "ready" || got["reference_number"] != f.shopRef || got["external_id"] != "SO-1" ||
			got["quantity"] != 3.0 || got["order_uid"] != nil || len(files) != 1 {
			t.Errorf("shop print %v", got)
		}
		_, pdf := platentest.Download(t, files[0].(map[string]any)["url"].(string))
		platentest.CheckFileDigest(t, "the shop print's file", files[0].(map[string]any), pdf)
		good := f.get(t, f.good)["files"].([]any)
		if len(good) != 1 {
			t.Fatalf("a ready item's print has files %v", good)
		}
		_, pdf = platentest.Download(t, good[0].(map[string]any)["url"].(string))
		platentest.CheckFileDigest(t, "the item print's file", good[0].(map[string]any), pdf)
		got = f.get(t, f.bad)
		if got["family"] != "A" || got["status"] != "processingfailed" || got["ecommerce_order_id"] != "1001" ||
			got["ecommerce_order_item_id"] != "1001-2" || !strings.Contains(fmt.Sprint(got["error"]), `unknown font "Nope"`) {
			t.Errorf("failed item %v", got)
		}
		// A team's operator: another team's print is as if it did not exist.
		platentest.ErrorBody(t, f.srv.Do(t, "GET", "/api/v1/operator/prints/"+f.theirs, f.member, nil), http.StatusNotFound)
		platentest.ErrorBody(t, f.srv.Do(t, "POST", "/api/v1/operator/prints/"+f.theirs+"/cancel", f.member, map[string]any{}), http.StatusNotFound)
		platentest.ErrorBody(t, f.srv.Do(t, "GET", "/api/v1/operator/prints?team_id="+fmt.Sprint(f.other.TeamID), f.member, nil), http.StatusForbidden)
		if p := f.get(t, f.theirs); p["status"] != "ready" {
			t.Errorf("another team's print after their operator's cancel: %v", p)
		}
		client := platenv1.NewOperatorServiceClient(f.srv.GRPC(t))
		if _, err := client.GetPrint(platentest.Bearer(t.Context(), f.member), &platenv1.GetPrintRequest{PrintId: f.theirs}); status.Code(err) != codes.NotFound {
			t.Errorf("gRPC: another team's print: %v", err)
		}
		p, err := client.GetPrint(platentest.Bearer(t.Context(), f.member), &platenv1.GetPrintRequest{PrintId: f.good})
		if err != nil || p.Status != "ready" || len(p.Files) != 1 {
			t.Errorf("gRPC: %v %v", p, err)
		} else if p.Files[0].GetSize() == nil || len(p.Files[0].GetSha256().GetValue()) != 64 {
			t.Errorf("gRPC: file %v, want its size and sha256", p.Files[0])
		}
	})
}

// TestOperatorActions: retry renders a failed print again; flag fails a
// print with the operator's reason, which the client reads; cancel stops
// a print for good (Family A's reads processingfailed, cancelled); each
// refuses a state that does not allow it.
func TestOperatorActions(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		f := setup(t, b)
		act := func(id, action string, body map[string]any, status int) map[string]any {
			t.Helper()
			r := f.srv.Do(t, "POST", "/api/v1/operator/prints/"+id+"/"+action, f.member, body)
			if r.Status != status {
				t.Fatalf("%s %s: %d %s, want %d", action, id, r.Status, r.Raw, status)
			}
			return r.Object(t)
		}
		clientStatus := func(itemID string) map[string]any {
			return f.srv.Do(t, "GET", "/api/v1/order-items/"+itemID+"/print", f.acme.Token, nil).Object(t)
		}

		if p := act(f.bad, "retry", map[string]any{}, 200); p["status"] != "received" || p["error"] != nil {
			t.Errorf("retried %v", p)
		}
		f.settle(t, f.bad)
		if p := f.get(t, f.bad); p["status"] != "processingfailed" {
			t.Errorf("the bad design rendered again and failed again: %v", p)
		}
		act(f.good, "retry", map[string]any{}, 400)

		act(f.good, "flag", map[string]any{}, 400)
		p := act(f.good, "flag", map[string]any{"reason": "the photo is upside down"}, 200)
		if p["status"] != "processingfailed" || p["error"] != "the photo is upside down" || len(p["files"].([]any)) != 0 {
			t.Errorf("flagged %v", p)
		}
		if s := clientStatus("1001-1"); s["status"] != "processingfailed" || s["error"] != "the photo is upside down" || s["url"] != nil {
			t.Errorf("the client reads %v", s)
		}
		if p := act(f.good, "retry", map[string]any{}, 200); p["status"] != "received" {
			t.Errorf("a flagged print retried: %v", p)
		}
		f.settle(t, f.good)
		if s := clientStatus("1001-1"); s["status"] != "ready" || s["error"] != nil {
			t.Errorf("rendered again: %v", s)
		}

		p = act(f.good, "cancel", map[string]any{}, 200)
		if p["status"] != "processingfailed" || p["error"] != "cancelled by the print shop" {
			t.Errorf("cancelled item %v", p)
		}
		// The print's history, oldest first, with who did what.
		var history []string
		for _, e := range p["history"].([]any) {
			e := e.(map[string]any)
			step := fmt.Sprint(e["kind"])
			if d, ok := e["detail"].(string); ok {
				step += " (" + d + ")"
			}
			if who, ok := e["operator_email"].(string); ok {
				step += " by " + who
			}
			history = append(history, step)
		}
		want := []string{"queued", "rendering", "ready", "flagged (the photo is upside down) by ada@example.com", "retried by ada@example.com",
			"queued", "rendering", "ready", "cancelled by ada@example.com"}
		if !slices.Equal(history, want) {
			t.Errorf("history\n%s\nwant\n%s", strings.Join(history, "\n"), strings.Join(want, "\n"))
		}
		// A Family B print flagged: one UPDATE that sets its error once
		// (PostgreSQL refused one that cleared it and set it).
		if p := act(f.shopPrint, "flag", map[string]any{"reason": "cut off"}, 200); p["status"] != "failed" || p["error"] != "cut off" {
			t.Errorf("flagged shop print %v", p)
		}
		if p := act(f.shopPrint, "cancel", map[string]any{}, 200); p["status"] != "cancelled" || len(p["files"].([]any)) != 0 {
			t.Errorf("cancelled shop print %v", p)
		}
		poll := f.srv.Do(t, "GET", "/v1/shop/orders/SO-1", f.acme.Token, nil).Object(t)["data"].(map[string]any)
		if sp := poll["lines"].([]any)[0].(map[string]any)["prints"].([]any)[0].(map[string]any); sp["status"] != "cancelled" || len(sp["files"].([]any)) != 0 {
			t.Errorf("the shop reads %v", sp)
		}
		for _, action := range []string{"retry", "cancel"} {
			act(f.shopPrint, action, map[string]any{}, 400)
		}
		act(f.shopPrint, "flag", map[string]any{"reason": "x"}, 400)
		act("no-such-print", "retry", map[string]any{}, 404)
	})
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestOneVocabularyForBothFamilies: each print's state reads the same for
// both families whatever failed it (a render, an operator's flag, a
// cancel); the list filters by state and counts by state, for staff and a
// team's operator; a retry clears the flag; an unknown state is a 400
// naming the field.
func TestOneVocabularyForBothFamilies(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		f := setup(t, b)
		act := func(id, action string, body map[string]any) {
			t.Helper()
			if r := f.srv.Do(t, "POST", "/api/v1/operator/prints/"+id+"/"+action, f.member, body); r.Status != http.StatusOK {
				t.Fatalf("%s %s: %d %s", action, id, r.Status, r.Raw)
			}
		}
		// A Family B print whose design cannot render fails as B's failed.
		if r := f.srv.Do(t, "POST", "/api/v1/design-versions", f.acme.Token, map[string]any{"design_version_id": "broken-v1", "template_config": url.QueryEscape(badDoc)}); r.Status != http.StatusOK {
			t.Fatalf("design version: %d %s", r.Status, r.Raw)
		}
		r := f.srv.Do(t, "POST", "/v1/shop/orders", f.acme.Token, map[string]any{"external_id": "SO-2", "lines": []map[string]any{{"design_version_id": "broken-v1", "quantity": 1}}})
		if r.Status != http.StatusCreated {
			t.Fatalf("shop order: %d %s", r.Status, r.Raw)
		}
		shopFailed := r.Object(t)["data"].(map[string]any)["lines"].([]any)[0].(map[string]any)["prints"].([]any)[0].(map[string]any)["id"].(string)
		f.settle(t, shopFailed)
		act(f.good, "flag", map[string]any{"reason": "smudged"})
		act(f.bad, "cancel", map[string]any{})
		act(f.shopPrint, "flag", map[string]any{"reason": "cut off"})

		want := map[string]string{f.good: "flagged", f.bad: "cancelled", f.shopPrint: "flagged", shopFailed: "failed", f.theirs: "ready"}
		for id, state := range want {
			if p := f.get(t, id); p["state"] != state {
				t.Errorf("print %s (%s, %s): state %v, want %s", id, p["family"], p["status"], p["state"], state)
			}
		}
		for _, c := range []struct {
			token string
			query string
			want  map[string][]string
		}{
			{f.staff, "", map[string][]string{"flagged": {f.good, f.shopPrint}, "cancelled": {f.bad}, "failed": {shopFailed}, "ready": {f.theirs}}},
			{f.member, "", map[string][]string{"flagged": {f.good, f.shopPrint}, "cancelled": {f.bad}, "failed": {shopFailed}}},
			{f.staff, "family=A&", map[string][]string{"flagged": {f.good}, "cancelled": {f.bad}, "ready": {f.theirs}}},
			{f.staff, fmt.Sprintf("team_id=%d&", f.other.TeamID), map[string][]string{"ready": {f.theirs}}},
		} {
			counts := f.srv.Do(t, "GET", "/api/v1/operator/print-counts?"+c.query, c.token, nil)
			if counts.Status != http.StatusOK {
				t.Fatalf("counts ?%s: %d %s", c.query, counts.Status, counts.Raw)
			}
			got := counts.Object(t)
			for _, state := range []string{"queued", "rendering", "ready", "failed", "flagged", "cancelled"} {
				if list := ids(t, f.srv.Do(t, "GET", "/api/v1/operator/prints?"+c.query+"state="+state, c.token, nil)); !sameSet(list, c.want[state]) {
					t.Errorf("?%sstate=%s: %v, want %v", c.query, state, list, c.want[state])
				}
				if got[state] != float64(len(c.want[state])) {
					t.Errorf("counts ?%s: %s %v, want %d (%s)", c.query, state, got[state], len(c.want[state]), counts.Raw)
				}
			}
		}
		// A flagged print retried is no longer flagged, whatever comes of it.
		act(f.good, "retry", map[string]any{})
		f.settle(t, f.good)
		if p := f.get(t, f.good); p["state"] != "ready" {
			t.Errorf("a flagged print retried: %v", p["state"])
		}
		msg, fields := platentest.ErrorBody(t, f.srv.Do(t, "GET", "/api/v1/operator/prints?state=processingfailed", f.staff, nil), http.StatusBadRequest)
		if !strings.Contains(msg, "state") && !slices.Contains(fields, "state") {
			t.Errorf("an unknown state: %q %v", msg, fields)
		}
	})
}
