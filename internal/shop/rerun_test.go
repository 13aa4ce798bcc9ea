package shop_test

import (
	"net/http"
	"testing"

	"github.com/riverqueue/river/rivertype"

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

		ran := srv.Jobs(t, renderjobs.ShopRenderKind)[0].Attempt
		srv.ReopenJobs(t, renderjobs.ShopRenderKind, ran)
		var attempt, waiting int
		var state rivertype.JobState
		if !poll.Within(readyTimeout, srv.JobEnded(), func() bool {
			job := srv.Jobs(t, renderjobs.ShopRenderKind)[0]
			attempt, state = job.Attempt, job.State
			waiting = srv.UnfinishedJobs(t, renderjobs.DeleteKind)
			return attempt == ran+1 && state == rivertype.JobStateCompleted && waiting == 0
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
