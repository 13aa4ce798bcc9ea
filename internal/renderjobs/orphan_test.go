package renderjobs_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/renderjobs"
)

// TestDroppedJobsFileRemoved: a render job's run that stored its file and
// then stopped before recording it (a kill, or a database that refused
// its outcome) leaves the file recorded nowhere, and the job's next run,
// finding its item deleted or changed by a PUT, stores nothing and removes
// nothing; one that fails stores nothing either. The delete, the PUT and
// the failure must remove that file themselves, or it stays in the bucket
// unreferenced.
func TestDroppedJobsFileRemoved(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		release := make(chan struct{})
		var hits atomic.Int64
		images := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
			w.Header().Set("Content-Type", "image/jpeg")
			_, _ = w.Write(photo(t, 40, 30))
		}))
		defer images.Close()
		var once sync.Once
		unblock := func() { once.Do(func() { close(release) }) }
		defer unblock()
		// One render at a time: the blocker holds it, so the other orders'
		// jobs wait, as a job that a stopped run gave back does.
		srv := platentest.StartWith(t, b, func(c *config.Config) { c.AllowPrivateNetwork, c.RenderWorkers = true, 1 })
		tenant := srv.Bootstrap(t, "acme", "shop-1")
		held := fmt.Sprintf(`{"width":50,"height":50,"layers":[{"type":"image","src":%q,"x":0,"y":0,"width":50,"height":50}]}`, images.URL+"/a.jpg")
		plain := `{"width":50,"height":50,"layers":[{"type":"rect","x":0,"y":0,"width":50,"height":50,"fill":"#ff0000"}]}`
		createOrder(t, srv, tenant.Token, platentest.OrderBody(tenant.StoreID, "blocker", platentest.PrintFiles(), platentest.Design(held)))
		srv.WaitFor(t, readyTimeout, "the blocker rendering", func() bool { return hits.Load() == 1 })

		deleted := createOrder(t, srv, tenant.Token, platentest.OrderBody(tenant.StoreID, "d", platentest.PrintFiles(), platentest.Design(plain)))
		changed := createOrder(t, srv, tenant.Token, platentest.OrderBody(tenant.StoreID, "c", platentest.PrintFiles(), platentest.Design(plain)))
		badFont := `{"width":50,"height":50,"layers":[{"type":"text","text":"x","font":"No-Such-Font","size":10,"x":1,"y":1}]}`
		failing := createOrder(t, srv, tenant.Token, platentest.OrderBody(tenant.StoreID, "f", platentest.PrintFiles(), platentest.Design(badFont)))
		// What the interrupted runs stored.
		left := []string{storeAsRunDid(t, srv, deleted), storeAsRunDid(t, srv, changed), storeAsRunDid(t, srv, failing)}

		if r := srv.Do(t, "DELETE", "/api/v1/orders/"+deleted["uid"].(string), tenant.Token, nil); r.Status != http.StatusOK {
			t.Fatalf("delete: %d %s", r.Status, r.Raw)
		}
		blue := `{"width":50,"height":50,"layers":[{"type":"rect","x":0,"y":0,"width":50,"height":50,"fill":"#0000ff"}]}`
		if r := srv.Do(t, "PUT", "/api/v1/orders/"+changed["uid"].(string), tenant.Token, map[string]any{"items": []any{platentest.OrderItem("c-1", blue)}}); r.Status != http.StatusOK {
			t.Fatalf("put: %d %s", r.Status, r.Raw)
		}
		unblock() // the failing render runs, and fails
		if p := srv.WaitPrint(t, tenant.Token, "f-1"); p["status"] != "processingfailed" {
			t.Fatalf("the bad font's print: %v", p)
		}
		for _, path := range left {
			srv.WaitFor(t, readyTimeout, "the dropped job's file removed: "+path, func() bool {
				_, err := os.Stat(path)
				return os.IsNotExist(err)
			})
		}
	})
}

// storeAsRunDid writes, where the render job of the order's first item
// stores its file, what a run that stopped after storing it left, and
// returns its path in the local file store.
func storeAsRunDid(t *testing.T, srv *platentest.Server, order map[string]any) string {
	t.Helper()
	itemUID := order["items"].([]any)[0].(map[string]any)["uid"].(string)
	var jobID int64
	if err := srv.DB().JobPool().QueryRow(`SELECT print_job_id FROM order_items WHERE uid = $1`, itemUID).Scan(&jobID); err != nil {
		t.Fatal(err)
	}
	path := storedPath(srv, renderjobs.FileKey("orders/"+order["uid"].(string)+"/"+itemUID, jobID))
	writeFile(t, path)
	return path
}

// TestDroppedShopJobsFilesRemoved is TestDroppedJobsFileRemoved for shop
// prints, whose job stores a file per surface: how many surfaces a stopped
// run stored is recorded nowhere, so a print cancelled by an operator, or
// failed by its job's next run, must remove every file under its job's
// prefix, and nobody else's.
func TestDroppedShopJobsFilesRemoved(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		release := make(chan struct{})
		var hits atomic.Int64
		images := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
			w.Header().Set("Content-Type", "image/jpeg")
			_, _ = w.Write(photo(t, 40, 30))
		}))
		defer images.Close()
		var once sync.Once
		unblock := func() { once.Do(func() { close(release) }) }
		defer unblock()
		srv := platentest.StartWith(t, b, func(c *config.Config) { c.AllowPrivateNetwork, c.RenderWorkers = true, 1 })
		tenant := srv.Bootstrap(t, "acme", "shop-1")
		held := fmt.Sprintf(`{"width":50,"height":50,"layers":[{"type":"image","src":%q,"x":0,"y":0,"width":50,"height":50}]}`, images.URL+"/a.jpg")
		createOrder(t, srv, tenant.Token, platentest.OrderBody(tenant.StoreID, "blocker", platentest.PrintFiles(), platentest.Design(held)))
		srv.WaitFor(t, readyTimeout, "the blocker rendering", func() bool { return hits.Load() == 1 })

		twoSides := `{"width":50,"height":50,"surfaces":[{"layers":[{"type":"rect","x":0,"y":0,"width":50,"height":50,"fill":"#ff0000"}]},` +
			`{"layers":[{"type":"rect","x":0,"y":0,"width":50,"height":50,"fill":"#0000ff"}]}]}`
		badFont := `{"width":50,"height":50,"surfaces":[{"layers":[{"type":"text","text":"x","font":"No-Such-Font","size":10,"x":1,"y":1}]},` +
			`{"layers":[{"type":"rect","x":0,"y":0,"width":50,"height":50,"fill":"#0000ff"}]}]}`
		for id, doc := range map[string]string{"two-sides": twoSides, "bad-font": badFont} {
			design := map[string]any{"design_version_id": id, "template_config": templateConfig(doc)}
			if r := srv.Do(t, "POST", "/api/v1/design-versions", tenant.Token, design); r.Status != http.StatusOK {
				t.Fatalf("design %s: %d %s", id, r.Status, r.Raw)
			}
		}
		order := map[string]any{"external_id": "SO-1", "lines": []any{
			map[string]any{"external_id": "cancelled", "design_version_id": "two-sides", "quantity": 1},
			map[string]any{"external_id": "failing", "design_version_id": "bad-font", "quantity": 1},
		}}
		r := srv.Do(t, "POST", "/v1/shop/orders", tenant.Token, order)
		if r.Status != http.StatusCreated {
			t.Fatalf("shop order: %d %s", r.Status, r.Raw)
		}
		data := r.Object(t)["data"].(map[string]any)
		ref := data["reference_number"].(string)
		printOf := func(line int) string {
			return data["lines"].([]any)[line].(map[string]any)["prints"].([]any)[0].(map[string]any)["id"].(string)
		}
		cancelled, failing := printOf(0), printOf(1)
		// What the interrupted runs stored: both surfaces of each.
		left := append(storeAsShopRunDid(t, srv, ref, cancelled, 2), storeAsShopRunDid(t, srv, ref, failing, 2)...)
		// Another job's file beside them, whose id begins with the
		// cancelled print's job's digits.
		other := storedPath(srv, renderjobs.SurfaceFileKey("shop/"+ref+"/"+cancelled, shopJobID(t, srv, cancelled)*10+1, 1))
		writeFile(t, other)

		staff := srv.Staff(t, "ops@example.com")
		if r := srv.Do(t, "POST", "/api/v1/operator/prints/"+cancelled+"/cancel", staff.Token, map[string]any{}); r.Status != http.StatusOK {
			t.Fatalf("cancel: %d %s", r.Status, r.Raw)
		}
		unblock() // the failing render runs, and fails
		srv.WaitFor(t, readyTimeout, "the bad font's print failed", func() bool {
			got := srv.Do(t, "GET", "/v1/shop/orders/"+ref, tenant.Token, nil).Object(t)["data"].(map[string]any)
			return got["lines"].([]any)[1].(map[string]any)["prints"].([]any)[0].(map[string]any)["status"] == "failed"
		})
		for _, path := range left {
			srv.WaitFor(t, readyTimeout, "the dropped job's file removed: "+path, func() bool {
				_, err := os.Stat(path)
				return os.IsNotExist(err)
			})
		}
		if _, err := os.Stat(other); err != nil {
			t.Errorf("another job's file under a like prefix: %v", err)
		}
	})
}

// storeAsShopRunDid writes, where the render job of the shop print stores
// its surfaces' files, what a run that stopped after storing them left,
// and returns their paths in the local file store.
func storeAsShopRunDid(t *testing.T, srv *platentest.Server, ref, printUID string, surfaces int) []string {
	t.Helper()
	jobID := shopJobID(t, srv, printUID)
	var paths []string
	for s := 1; s <= surfaces; s++ {
		path := storedPath(srv, renderjobs.SurfaceFileKey("shop/"+ref+"/"+printUID, jobID, s))
		writeFile(t, path)
		paths = append(paths, path)
	}
	return paths
}

func shopJobID(t *testing.T, srv *platentest.Server, printUID string) int64 {
	t.Helper()
	var jobID int64
	if err := srv.DB().JobPool().QueryRow(`SELECT job_id FROM shop_prints WHERE uid = $1`, printUID).Scan(&jobID); err != nil {
		t.Fatal(err)
	}
	return jobID
}

// storedPath is where the local file store keeps key.
func storedPath(srv *platentest.Server, key string) string {
	return filepath.Join(srv.Config.DataDir, "files", filepath.FromSlash(key))
}

func writeFile(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("%PDF-1.7 an interrupted run's file"), 0o644); err != nil {
		t.Fatal(err)
	}
}
