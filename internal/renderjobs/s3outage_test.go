package renderjobs_test

import (
	"net/http"
	"testing"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/fakes3"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/renderjobs"
)

// TestS3Outage: with the S3 server gone, a download link answers 503 with
// Retry-After (not a redirect to a file that cannot come), and a render
// that cannot store its file is retried, its print processing meanwhile,
// not failed; once S3 is back, the print turns ready and links work.
func TestS3Outage(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		blobURL, outage := fakes3.StartWithOutage(t, "prints")
		srv := platentest.StartWith(t, b, func(c *config.Config) { c.BlobURL = blobURL })
		tenant := srv.Bootstrap(t, "acme", "shop-1")
		doc := designDoc(dataURI(photo(t, 60, 40)))
		createOrder(t, srv, tenant.Token, platentest.OrderBody(tenant.StoreID, "1", platentest.PrintFiles(), platentest.Design(doc)))
		link := srv.WaitPrint(t, tenant.Token, "1-1")["url"].(string)

		outage.Down()
		noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := noRedirect.Get(link)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Errorf("download link with S3 down: %d, Retry-After %q; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
		}

		createOrder(t, srv, tenant.Token, platentest.OrderBody(tenant.StoreID, "2", platentest.PrintFiles(), platentest.Design(doc)))
		srv.WaitFor(t, readyTimeout, "the render's first attempt failed on the store", func() bool { return failedAttempts(t, srv) > 0 })
		if p := printOf(t, srv, tenant.Token, "2-1"); p["status"] != "processing" {
			t.Errorf("print while S3 is down: %v, want processing", p)
		}

		outage.Up()
		if p := srv.WaitPrint(t, tenant.Token, "2-1"); p["status"] != "ready" {
			t.Fatalf("print once S3 is back: %v", p)
		}
		resp, err = noRedirect.Get(link)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusFound {
			t.Errorf("download link once S3 is back: %d, want 302", resp.StatusCode)
		}
	})
}

// failedAttempts counts the server's render jobs that recorded errors.
func failedAttempts(t *testing.T, srv *platentest.Server) int {
	t.Helper()
	n := 0
	for _, job := range srv.Jobs(t, renderjobs.RenderKind) {
		if len(job.Errors) > 0 {
			n++
		}
	}
	return n
}

// printOf reads an item's print status.
func printOf(t *testing.T, srv *platentest.Server, token, itemID string) map[string]any {
	t.Helper()
	r := srv.Do(t, "GET", "/api/v1/order-items/"+itemID+"/print", token, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("print status: %d %s", r.Status, r.Raw)
	}
	return r.Object(t)
}
