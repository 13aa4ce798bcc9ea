package batches_test

import (
	"encoding/json"
	"fmt"
	"image/color"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/pdfxtest"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/poppler"
)

// readyTimeout bounds a batch's wait for its file: renders run in their
// own processes, under -race on two cores.
const readyTimeout = 90 * time.Second

// card is a 140 × 100 mm design with 3 mm of bleed, all one colour, with
// a line of text near its top.
func card(fill string) string {
	return fmt.Sprintf(`{"width":140,"height":100,"bleed":3,"layers":[`+
		`{"type":"rect","x":-3,"y":-3,"width":146,"height":106,"fill":%q},`+
		`{"type":"text","text":"Card","size":10,"x":5,"y":5,"width":50}]}`, fill)
}

func item(id string, quantity int, doc string) map[string]any {
	return map[string]any{
		"ecommerce_order_item_id": id, "ecommerce_variant_id": "card-a6", "quantity": quantity,
		"template_config": url.QueryEscape(doc), "thumbnails": []string{"https://example.com/" + id + ".png"},
	}
}

// fixture is a team with two stores, an A6 card variant, a staff operator
// and an SRA3 template of 2 × 4 slots (148 × 105 mm, 6 mm apart, 5 mm
// margins, 2 mm of bleed kept, crop marks) assigned to the variant.
type fixture struct {
	srv           *platentest.Server
	shop, outlet  platentest.Tenant
	teamToken     string
	staffToken    string
	variantID     int
	templateUID   string
	templateName  string
	hooks         *platentest.Receiver
	otherTeam     platentest.Tenant
	otherTemplate string
}

func setup(t *testing.T, b platentest.Backend) *fixture {
	t.Helper()
	f := &fixture{srv: platentest.StartWith(t, b, func(c *config.Config) { c.AllowPrivateNetwork = true })}
	f.hooks = platentest.NewReceiver(t, platentest.GetsFindNothing())
	f.shop, f.outlet = f.srv.Bootstrap(t, "acme", "acme-shop"), f.srv.Bootstrap(t, "acme", "acme-outlet")
	f.otherTeam = f.srv.Bootstrap(t, "other", "other-shop")
	f.teamToken = f.srv.TeamToken(t, f.shop.TeamID)
	for _, tenant := range []platentest.Tenant{f.shop, f.outlet} {
		r := f.srv.Do(t, "PUT", "/api/v1/stores/"+tenant.StoreID+"/webhook", f.teamToken, map[string]any{"url": f.hooks.URL + "/" + tenant.StoreID})
		if r.Status != http.StatusOK {
			t.Fatalf("webhook of %s: %d %s", tenant.StoreID, r.Status, r.Raw)
		}
	}
	staff := f.srv.Staff(t, "grace@example.com")
	f.staffToken = staff.Token
	f.variantID = f.variant(t, f.shop, "card-a6")
	f.templateName = "SRA3, 8 A6 cards"
	f.templateUID = f.template(t, f.shop.TeamID, f.variantID)
	f.otherTemplate = f.template(t, f.otherTeam.TeamID, f.variant(t, f.otherTeam, "card-a6"))
	return f
}

// variant creates a category, product and variant of tenant's team whose
// ecommerce variant id is evid, and returns its id.
func (f *fixture) variant(t *testing.T, tenant platentest.Tenant, evid string) int {
	t.Helper()
	token := f.srv.TeamToken(t, tenant.TeamID)
	cat := f.srv.Do(t, "POST", "/api/v1/product-categories", token, map[string]any{"name": "Cards " + evid})
	prod := f.srv.Do(t, "POST", "/api/v1/products", token, map[string]any{"category_id": cat.Object(t)["id"], "name": "Card",
		"order_column": 1, "active": true, "team_id": tenant.TeamID})
	v := f.srv.Do(t, "POST", "/api/v1/product-variants", token, map[string]any{"name": evid, "product_id": prod.Object(t)["id"],
		"country_id": 276, "ecommerce_variant_ids": []string{evid}})
	if v.Status != http.StatusOK {
		t.Fatalf("variant: %d %s", v.Status, v.Raw)
	}
	return int(v.Object(t)["id"].(float64))
}

func (f *fixture) template(t *testing.T, teamID int, variants ...int) string {
	t.Helper()
	r := f.srv.Do(t, "POST", "/api/v1/operator/print-templates", f.staffToken, map[string]any{
		"team_id": teamID, "name": f.templateName, "sheet_width_mm": 320, "sheet_height_mm": 450,
		"margin_top_mm": 5, "margin_right_mm": 5, "margin_bottom_mm": 5, "margin_left_mm": 5, "gap_mm": 6, "slot_bleed_mm": 2,
		"grid": map[string]any{"columns": 2, "rows": 4, "slot_width_mm": 148, "slot_height_mm": 105}, "crop_marks": true, "variant_ids": variants,
	})
	if r.Status != http.StatusOK {
		t.Fatalf("template: %d %s", r.Status, r.Raw)
	}
	return r.Object(t)["uid"].(string)
}

// order creates an order of tenant's store without print files and
// returns its items' uids.
func (f *fixture) order(t *testing.T, tenant platentest.Tenant, id string, items ...map[string]any) []string {
	t.Helper()
	r := f.srv.Do(t, "POST", "/api/v1/orders", tenant.Token, map[string]any{
		"store_id": tenant.StoreID, "ecommerce_order_id": id, "create_print_files": false, "items": items,
	})
	if r.Status != http.StatusOK {
		t.Fatalf("order %s: %d %s", id, r.Status, r.Raw)
	}
	var uids []string
	for _, it := range r.Object(t)["items"].([]any) {
		uids = append(uids, it.(map[string]any)["uid"].(string))
	}
	return uids
}

// wait polls the batch until it leaves Batching.
func (f *fixture) wait(t *testing.T, token, uid string) map[string]any {
	t.Helper()
	var batch map[string]any
	f.srv.WaitFor(t, readyTimeout, "batch "+uid+" done", func() bool {
		r := f.srv.Do(t, "GET", "/api/v1/batch-orders/"+uid, token, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("GET batch: %d %s", r.Status, r.Raw)
		}
		batch = r.Object(t)
		return batch["status"] != "Batching"
	})
	return batch
}

// TestABatchFromTemplateToSheet: items of two orders of two stores are
// batched with a team token; the batch answers Batching, then Ready with
// one file of two sheets whose slots hold the right designs, with crop
// marks, labels and slug lines, and each store gets batch_order.ready
// with a link that downloads the same file.
func TestABatchFromTemplateToSheet(t *testing.T) {
	poppler.Need(t, "pdfinfo", "pdftoppm", "pdftotext")
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		f := setup(t, b)
		red, blue := card("#ff0000"), card("#0000ff")
		first := f.order(t, f.shop, "1001", item("1001-1", 4, red), item("1001-2", 1, red))
		second := f.order(t, f.outlet, "2001", item("2001-1", 5, blue))
		items := append(first, second...)

		r := f.srv.Do(t, "POST", "/api/v1/batch-orders", f.teamToken, map[string]any{"order_items": items, "print_templates": []string{f.templateUID}})
		if r.Status != http.StatusOK {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		created := r.Object(t)
		uid, _ := created["uid"].(string)
		files, _ := created["files"].([]any)
		if created["status"] != "Batching" || uid == "" || created["error"] != nil || len(files) != 1 ||
			files[0].(map[string]any)["url"] != nil || files[0].(map[string]any)["print_template_uid"] != f.templateUID {
			t.Fatalf("created %s", r.Raw)
		}
		if fmt.Sprint(created["order_items"]) != fmt.Sprint(items) {
			t.Errorf("order_items %v, want %v", created["order_items"], items)
		}
		platentest.CheckNoFileDigest(t, "the file while Batching", files[0].(map[string]any))

		done := f.wait(t, f.teamToken, uid)
		file := done["files"].([]any)[0].(map[string]any)
		if done["status"] != "Ready" || file["pages"] != 2.0 || done["error"] != nil {
			t.Fatalf("done %v", done)
		}
		link := file["url"].(string)
		resp, pdf := platentest.Download(t, link)
		platentest.CheckFileDigest(t, "the batch's file", file, pdf)
		platentest.CheckDigestHeaders(t, "the batch's download", resp, pdf)
		for what, tc := range map[string]struct {
			link   string
			status int
		}{
			"an altered token":         {link[:len(link)-2] + "xx", http.StatusForbidden},
			"no token":                 {link[:strings.Index(link, "?")], http.StatusForbidden},
			"a file the batch has not": {strings.Replace(link, "/1?token=", "/2?token=", 1), http.StatusNotFound},
		} {
			t.Run(what, func(t *testing.T) {
				resp, body := platentest.Get(t, platentest.NoRedirect, tc.link)
				platentest.CheckJSONError(t, resp, body, tc.status, "")
			})
		}
		path := filepath.Join(t.TempDir(), "batch.pdf")
		if err := os.WriteFile(path, pdf, 0o600); err != nil {
			t.Fatal(err)
		}
		info := strings.Join(strings.Fields(poppler.Run(t, "pdfinfo", path)), " ")
		if !strings.Contains(info, "Pages: 2") || !strings.Contains(info, "Page size: 907.087 x 1275.59 pts") {
			t.Errorf("pdfinfo: %s", info)
		}
		// Slot i (from 0) has its centre at (79 + 154·(i%2), 57.5 + 111·(i/2)) mm.
		centre := func(i int) (float64, float64) { return 79 + 154*float64(i%2), 57.5 + 111*float64(i/2) }
		// The designs' colours as pdftoppm shows them: through the file's
		// output intent, as the press prints them (pdfxtest.Proof).
		reds := pdfxtest.Proof(t, color.RGBA{R: 255, A: 255})
		blues := pdfxtest.Proof(t, color.RGBA{B: 255, A: 255})
		whites := pdfxtest.Proof(t, color.RGBA{R: 255, G: 255, B: 255, A: 255})
		for _, tc := range []struct {
			page, slot int
			want       color.RGBA
		}{{1, 0, reds}, {1, 3, reds}, {1, 4, reds}, {1, 5, blues}, {1, 7, blues}, {2, 0, blues}, {2, 1, blues}, {2, 2, whites}} {
			x, y := centre(tc.slot)
			if got := pixel(t, path, tc.page, x, y); got != tc.want {
				t.Errorf("sheet %d, slot %d: %v, want %v", tc.page, tc.slot+1, got, tc.want)
			}
		}
		// A crop mark beside the first slot's top-left trim corner (9, 7.5):
		// from 3 mm (the bleed kept and 1 mm) to 6 mm out along the top
		// edge's line; none inside the gap's bleed.
		if got := poppler.Pixel(t, path, 1, 300, 9-4.5, 7.5); got.R > 160 {
			t.Errorf("no crop mark left of slot 1's corner: %v", got)
		}
		text := poppler.Run(t, "pdftotext", path, "-")
		for _, want := range []string{"Batch " + uid + " · sheet 1 of 2 · " + f.templateName, "sheet 2 of 2", "1001 / 1001-1", "1001 / 1001-2", "2001 / 2001-1"} {
			if !strings.Contains(text, want) {
				t.Errorf("the sheets' text lacks %q:\n%s", want, text)
			}
		}

		got := f.hooks.Wait(t, 2, readyTimeout)
		stores := map[string]bool{}
		for _, req := range got {
			stores[req.Path] = true
			var event map[string]any
			if err := json.Unmarshal(req.Body, &event); err != nil {
				t.Fatal(err)
			}
			files := event["files"].([]any)
			if req.Header.Get("Platen-Event") != "batch_order.ready" || event["event"] != "batch_order.ready" || event["batch_uid"] != uid ||
				event["status"] != "Ready" || event["sent_at"] == nil || len(files) != 1 || files[0].(map[string]any)["pages"] != 2.0 {
				t.Errorf("event to %s: %s", req.Path, req.Body)
				continue
			}
			if _, again := platentest.Download(t, files[0].(map[string]any)["url"].(string)); string(again) != string(pdf) {
				t.Errorf("the event's link downloads another file")
			}
			platentest.CheckFileDigest(t, "the event's file", files[0].(map[string]any), pdf)
		}
		if !stores["/acme-shop"] || !stores["/acme-outlet"] {
			t.Errorf("events went to %v, want both stores", stores)
		}

		// A batch whose file was stored before sizes and digests were kept
		// (its row made so here) answers them null, and downloads as
		// before, without digest fields.
		forgetDigests(t, f.srv, b, uid)
		old := f.wait(t, f.teamToken, uid)["files"].([]any)[0].(map[string]any)
		platentest.CheckNoFileDigest(t, "a file stored before digests", old)
		if resp, again := platentest.Download(t, old["url"].(string)); string(again) != string(pdf) || resp.Header.Values("Content-Digest") != nil {
			t.Errorf("a file stored before digests: %d bytes, headers %v", len(again), resp.Header)
		}
	})
}

// forgetDigests rewrites a batch's files as rows written before sizes and
// digests were kept hold them.
func forgetDigests(t *testing.T, srv *platentest.Server, b platentest.Backend, uid string) {
	t.Helper()
	db := srv.DB().JobPool()
	placeholder := func(n int) string {
		if b.Name == "postgres" {
			return fmt.Sprintf("$%d", n)
		}
		return "?"
	}
	var raw []byte
	if err := db.QueryRowContext(t.Context(), "SELECT files FROM batch_orders WHERE uid = "+placeholder(1), uid).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	var files []map[string]any
	if err := json.Unmarshal(raw, &files); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f["sha256"] == nil || f["size"] == nil {
			t.Fatalf("the stored file %v has no digest to forget", f)
		}
		delete(f, "sha256")
		delete(f, "size")
	}
	raw, _ = json.Marshal(files)
	if _, err := db.ExecContext(t.Context(), "UPDATE batch_orders SET files = "+placeholder(1)+" WHERE uid = "+placeholder(2), string(raw), uid); err != nil {
		t.Fatal(err)
	}
}

// pixel is the colour at (x, y) mm of page n, rasterised at 50 dpi.
func pixel(t *testing.T, pdf string, page int, x, y float64) color.RGBA {
	t.Helper()
	return poppler.Pixel(t, pdf, page, 50, x, y)
}

// TestABatchThatCannotRenderFails: an item whose photo is missing fails
// the batch, which says which item and why, and the store gets
// batch_order.failed with that reason.
func TestABatchThatCannotRenderFails(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		f := setup(t, b)
		missing := f.hooks.URL + "/no-such-photo.jpg"
		broken := fmt.Sprintf(`{"width":140,"height":100,"layers":[{"type":"image","src":%q,"x":0,"y":0,"width":140,"height":100}]}`, missing)
		items := f.order(t, f.shop, "1001", item("1001-1", 1, card("#ff0000")), item("1001-2", 1, broken))
		r := f.srv.Do(t, "POST", "/api/v1/batch-orders", f.teamToken, map[string]any{"order_items": items, "print_templates": []string{f.templateUID}})
		if r.Status != http.StatusOK {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		done := f.wait(t, f.teamToken, r.Object(t)["uid"].(string))
		reason, _ := done["error"].(string)
		file := done["files"].([]any)[0].(map[string]any)
		if done["status"] != "Failed" || !strings.HasPrefix(reason, "order_items[1]: ") || !strings.Contains(reason, "404") ||
			file["url"] != nil || file["pages"] != 0.0 {
			t.Fatalf("done %v", done)
		}
		platentest.CheckNoFileDigest(t, "a failed batch's file", file)
		var event map[string]any
		for _, req := range f.hooks.Wait(t, 1, readyTimeout) {
			if req.Path == "/acme-shop" {
				if err := json.Unmarshal(req.Body, &event); err != nil {
					t.Fatal(err)
				}
			}
		}
		if event["event"] != "batch_order.failed" || event["status"] != "Failed" || event["error"] != reason || len(event["files"].([]any)) != 0 {
			t.Errorf("event %v", event)
		}
	})
}
