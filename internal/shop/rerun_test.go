package shop_test

import (
	"net/http"
	"testing"

	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
	"github.com/platen-print/platen/internal/renderjobs"
)

// TestRenderRunAgainKeepsFiles: a render job that runs again after its
// print turned ready, as one does when its end could not be recorded
// (put back by its process, or by River's rescuer), leaves the print
// ready with files that download: the files it writes again under the
// same names are not queued for removal as the print's old ones.
func TestRenderRunAgainKeepsFiles(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		shopA := srv.Bootstrap(t, "acme", "acme-shop")
		register(t, srv, shopA.Token, "sticker-v1", stickerDoc)
		created := data(t, srv.Do(t, "POST", "/v1/shop/orders", shopA.Token, shopOrder("SO-9", line("sticker-v1", 1, ""))), http.StatusCreated)
		ref := created["reference_number"].(string)
		srv.WaitShopOrder(t, shopA.Token, ref)

		jobs := srv.DB().JobPool()
		if _, err := jobs.Exec(`UPDATE river_job SET state = 'available', finalized_at = NULL WHERE kind = '` + renderjobs.ShopRenderKind + `'`); err != nil {
			t.Fatal(err)
		}
		var attempt, waiting int
		var state string
		if !poll.Within(readyTimeout, srv.JobEnded(), func() bool {
			err := jobs.QueryRow(`SELECT attempt, state FROM river_job WHERE kind = '`+renderjobs.ShopRenderKind+`'`).Scan(&attempt, &state)
			if err != nil {
				t.Fatal(err)
			}
			if err := jobs.QueryRow(`SELECT count(*) FROM river_job WHERE kind = '` + renderjobs.DeleteKind + `' AND state NOT IN ('completed', 'discarded', 'cancelled')`).Scan(&waiting); err != nil {
				t.Fatal(err)
			}
			return attempt == 2 && state == "completed" && waiting == 0
		}) {
			t.Fatalf("the job again: attempt %d, %s; %d file deletes waiting", attempt, state, waiting)
		}
		p := prints(t, srv.WaitShopOrder(t, shopA.Token, ref))[0]
		if p["status"] != "ready" {
			t.Fatalf("print %v", p)
		}
		for _, f := range p["files"].([]any) {
			platentest.Download(t, f.(map[string]any)["url"].(string))
		}
	})
}
