package renderjobs_test

import (
	"bytes"
	"testing"

	"github.com/riverqueue/river/rivertype"

	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/renderjobs"
)

// TestJobRunAgainAfterItsPrintWasReady: a process that stops between a
// render's ready and its job's end leaves the job to run again, as often as
// a crash can; that run leaves the ready print and its file as they are,
// instead of failing the print and orphaning the file (the job here has
// run as many times as a render may be interrupted).
func TestJobRunAgainAfterItsPrintWasReady(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.StartWith(t, b, nil)
		tenant := srv.Bootstrap(t, "acme", "shop-1")
		doc := designDoc(dataURI(photo(t, 60, 40)))
		createOrder(t, srv, tenant.Token, platentest.OrderBody(tenant.StoreID, "5", platentest.PrintFiles(), platentest.Design(doc)))
		before := srv.WaitPrint(t, tenant.Token, "5-1")
		_, file := platentest.Download(t, before["url"].(string))

		// What a restart leaves of a job whose process stopped: available
		// again, its runs so far unanswered.
		srv.ReopenJobs(t, renderjobs.RenderKind, renderjobs.MaxInterruptions+1)
		srv.WaitFor(t, readyTimeout, "the job run again and completed", func() bool {
			return srv.Jobs(t, renderjobs.RenderKind)[0].State == rivertype.JobStateCompleted
		})
		after := srv.WaitPrint(t, tenant.Token, "5-1")
		if after["status"] != "ready" {
			t.Fatalf("after the job ran again: %v", after)
		}
		if _, again := platentest.Download(t, after["url"].(string)); !bytes.Equal(again, file) {
			t.Error("the file changed when the job ran again")
		}
		if n := storedFiles(t, srv); n != 1 {
			t.Errorf("%d stored files, want the print's one", n)
		}
	})
}
