package panel_test

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/platentest"
)

// TestBatchesInABrowser drives the batches pages in Debian's chromium
// (browser/batches.test.js): a team's operator ticks prints on the prints
// list (the ticks outliving the rows' refreshes), ticks a print template
// and makes the batch; its page and the list turn Ready without a reload;
// the sheet's link answers a PDF; a hostile template name stays text; the
// pages fit a phone. Screenshots go to $PLATEN_SCREENSHOTS when set.
func TestBatchesInABrowser(t *testing.T) {
	t.Parallel() // a browser test mostly waits (on the page's refreshes, a render): the four overlap
	chromium := needBrowser(t)
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		release := make(chan struct{})
		slow := heldPNG(t, release)
		srv := platentest.StartWith(t, b, func(c *config.Config) { c.AllowPrivateNetwork = true })
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		staff := srv.Staff(t, "grace@example.com")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
		hostile := `SRA3 <img src=x onerror=alert(1)>`
		tmpl := batchable(t, srv, acme, staff.Token, hostile)
		items := cards(t, srv, acme, "1001", 2)
		// An item whose photo is held until the page shows the batch
		// Batching: the batch cannot turn Ready before the script watches.
		photo := fmt.Sprintf(`{"width":140,"height":100,"layers":[{"type":"image","src":%q,"x":0,"y":0,"width":140,"height":100}]}`, slow.URL+"/p.png")
		r := srv.Do(t, "POST", "/api/v1/orders", acme.Token, map[string]any{"store_id": acme.StoreID, "ecommerce_order_id": "1002",
			"create_print_files": false, "items": []map[string]any{{"ecommerce_order_item_id": "1002-1", "ecommerce_variant_id": cardVariant,
				"quantity": 1, "template_config": url.QueryEscape(photo), "thumbnails": []string{"https://example.com/t.png"}}}})
		if r.Status != 200 {
			t.Fatalf("order 1002: %d %s", r.Status, r.Raw)
		}
		held := r.Object(t)["items"].([]any)[0].(map[string]any)["uid"].(string)

		out := runScript(t, b, "batches.test.js", 11, map[string]string{"BASE": srv.BaseURL, "CHROMIUM": chromium,
			"MEMBER_EMAIL": member.Email, "MEMBER_PASSWORD": member.Password,
			"ITEMS": items[0] + "," + held, "UNTICKED": items[1], "TEMPLATE": tmpl, "TEMPLATE_NAME": hostile},
			func(step string) {
				if step == "batching" {
					close(release) // the pages show the batch Batching: let it finish
				}
			})
		checkScreenshots(t, out, "batches", "batch")
	})
}
