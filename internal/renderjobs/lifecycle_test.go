package renderjobs_test

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/renderjobs"
)

func createOrder(t *testing.T, srv *platentest.Server, token string, body map[string]any) map[string]any {
	t.Helper()
	r := srv.Do(t, "POST", "/api/v1/orders", token, body)
	if r.Status != http.StatusOK {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	return r.Object(t)
}

func itemPrint(t *testing.T, srv *platentest.Server, token, orderUID string, i int) map[string]any {
	t.Helper()
	r := srv.Do(t, "GET", "/api/v1/orders/"+orderUID, token, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("get order: %d %s", r.Status, r.Raw)
	}
	return r.Object(t)["items"].([]any)[i].(map[string]any)["print"].(map[string]any)
}

// TestPrintFilesOnRequest: with create_print_files false nothing renders
// until POST …/print-files, which answers the order and queues its items;
// asking twice renders once.
func TestPrintFilesOnRequest(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.StartWith(t, b, nil)
		tenant := srv.Bootstrap(t, "acme", "shop-1")
		doc := designDoc(dataURI(photo(t, 60, 40)))
		o := createOrder(t, srv, tenant.Token, platentest.OrderBody(tenant.StoreID, "7", platentest.Design(doc)))
		uid := o["uid"].(string)
		// Renders run as jobs, written with the change that asks for them:
		// with none queued, nothing renders until print-files queues one.
		if n := renderJobs(t, srv); n != 0 {
			t.Fatalf("%d render jobs before print-files, want none", n)
		}
		if p := itemPrint(t, srv, tenant.Token, uid, 0); p["status"] != "received" || p["url"] != nil {
			t.Fatalf("before print-files: %v", p)
		}
		r := srv.Do(t, "POST", "/api/v1/orders/"+uid+"/print-files", tenant.Token, map[string]any{})
		if r.Status != http.StatusOK {
			t.Fatalf("print-files: %d %s", r.Status, r.Raw)
		}
		if got := r.Object(t); got["uid"] != uid || got["create_print_files"] != false {
			t.Errorf("print-files answer: %v", got)
		}
		first := srv.WaitPrint(t, tenant.Token, "7-1")
		if first["status"] != "ready" {
			t.Fatalf("after print-files: %v", first)
		}
		// Asking again leaves the ready file alone.
		if r := srv.Do(t, "POST", "/api/v1/orders/"+uid+"/print-files", tenant.Token, map[string]any{}); r.Status != http.StatusOK {
			t.Fatalf("second print-files: %d %s", r.Status, r.Raw)
		}
		if p := itemPrint(t, srv, tenant.Token, uid, 0); p["status"] != "ready" {
			t.Errorf("second print-files moved a ready item: %v", p)
		}
		if n := renderJobs(t, srv); n != 1 {
			t.Errorf("%d render jobs after asking twice, want 1", n)
		}
		// Items a PUT adds to an order whose files were asked for render too.
		r = srv.Do(t, "PUT", "/api/v1/orders/"+uid, tenant.Token, map[string]any{"items": []any{platentest.OrderItem("7-1", doc), platentest.OrderItem("7-2", doc)}})
		if r.Status != http.StatusOK {
			t.Fatalf("put: %d %s", r.Status, r.Raw)
		}
		if got := srv.WaitPrint(t, tenant.Token, "7-2"); got["status"] != "ready" {
			t.Errorf("added item: %v", got)
		}
		// Unknown and other teams' orders are 404.
		other := srv.Bootstrap(t, "globex", "shop-2")
		if r := srv.Do(t, "POST", "/api/v1/orders/"+uid+"/print-files", other.Token, map[string]any{}); r.Status != http.StatusNotFound {
			t.Errorf("other team's print-files: %d %s", r.Status, r.Raw)
		}
	})
}

// renderJobs counts the server's Family A render jobs, whatever their state.
func renderJobs(t *testing.T, srv *platentest.Server) int {
	t.Helper()
	return len(srv.Jobs(t, renderjobs.RenderKind))
}

// TestBadDocumentFails: a document the renderer cannot honour fails at
// once with a reason naming the layer, in the order details.
func TestBadDocumentFails(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.StartWith(t, b, nil)
		tenant := srv.Bootstrap(t, "acme", "shop-1")
		cases := map[string]struct{ doc, reason string }{
			"unknown font in a group":   {`{"width":100,"height":100,"layers":[{"type":"rect","x":0,"y":0,"width":1,"height":1,"fill":"#000"},{"type":"group","layers":[{"type":"text","text":"hi","font":"Nope","size":12}]}]}`, `layers[1].layers[0]: unknown font "Nope"`},
			"unknown font on a surface": {`{"width":100,"height":100,"surfaces":[{"name":"front","layers":[{"type":"rect","x":0,"y":0,"width":1,"height":1,"fill":"#000"}]},{"name":"back","layers":[{"type":"text","text":"hi","font":"Nope","size":12}]}]}`, `surfaces[1].layers[0]: unknown font "Nope"`},
			"unknown font":              {`{"width":100,"height":100,"layers":[{"type":"text","text":"hi","font":"Comic-Sans","size":12,"x":0,"y":0}]}`, `layers[0]`},
		}
		n := 0
		for name, c := range cases {
			t.Run(name, func(t *testing.T) {
				n++
				id := fmt.Sprintf("bad-%d", n)
				o := createOrder(t, srv, tenant.Token, platentest.OrderBody(tenant.StoreID, id, platentest.PrintFiles(), platentest.Design(c.doc)))
				st := srv.WaitPrint(t, tenant.Token, id+"-1")
				if st["status"] != "processingfailed" || st["url"] != nil {
					t.Fatalf("print status %v", st)
				}
				p := itemPrint(t, srv, tenant.Token, o["uid"].(string), 0)
				reason, _ := p["error"].(string)
				if !strings.Contains(reason, c.reason) {
					t.Errorf("error %q, want it to say %q", reason, c.reason)
				}
				if st["error"] != reason {
					t.Errorf("the print status's error %v, want the order's %q", st["error"], reason)
				}
			})
		}
	})
}

// TestRefusedImageAddresses: images on loopback, private, link-local,
// metadata and other internal addresses, by IP or by a name that resolves
// to one, fail the print with the reason, without a connection; the same
// image on loopback renders once --allow-private-network is set.
func TestRefusedImageAddresses(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		var hits atomic.Int64
		images := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			hits.Add(1)
			w.Header().Set("Content-Type", "image/jpeg")
			_, _ = w.Write(photo(t, 40, 30))
		}))
		defer images.Close()
		port := images.URL[strings.LastIndex(images.URL, ":")+1:]

		srv := platentest.StartWith(t, b, nil)
		tenant := srv.Bootstrap(t, "acme", "shop-1")
		refused := map[string]struct{ src, reason string }{
			"loopback":              {images.URL + "/a.jpg", "loopback"},
			"loopback IPv6":         {"http://[::1]:" + port + "/a.jpg", "loopback"},
			"name of loopback":      {"http://localhost:" + port + "/a.jpg", "loopback"},
			"private 10/8":          {"http://10.1.2.3/a.jpg", "private"},
			"private 172.16/12":     {"http://172.16.0.9/a.jpg", "private"},
			"private 192.168/16":    {"http://192.168.1.1/a.jpg", "private"},
			"private IPv6 fc00::/7": {"http://[fd12::1]/a.jpg", "private"},
			"link-local":            {"http://169.254.10.10/a.jpg", "link-local"},
			"link-local IPv6":       {"http://[fe80::1]/a.jpg", "link-local"},
			"metadata":              {"http://169.254.169.254/latest/meta-data/", "metadata"},
			"metadata IPv6":         {"http://[fd00:ec2::254]/", "metadata"},
			"metadata by name":      {"http://metadata.google.internal/computeMetadata/v1/", "metadata"},
			"unspecified":           {"http://0.0.0.0:" + port + "/a.jpg", "unspecified"},
			"IPv4-mapped loopback":  {"http://[::ffff:127.0.0.1]:" + port + "/a.jpg", "loopback"},
			"IPv4-compatible":       {"http://[::127.0.0.1]:" + port + "/a.jpg", "IPv4-compatible address for 127.0.0.1, a loopback"},
			"IPv4-translated":       {"http://[::ffff:0:7f00:1]:" + port + "/a.jpg", "IPv4-translated address for 127.0.0.1, a loopback"},
			"NAT64 metadata":        {"http://[64:ff9b::a9fe:a9fe]/latest/meta-data/", "NAT64 address for 169.254.169.254, the cloud metadata"},
			"6to4 private":          {"http://[2002:a00:1::1]/a.jpg", "6to4 address for 10.0.0.1, a private"},
			"Teredo client":         {"http://[2001:0:808:808::80ff:fffe]/a.jpg", "Teredo address whose client is 127.0.0.1"},
		}
		n := 0
		for name, c := range refused {
			t.Run(name, func(t *testing.T) {
				n++
				id := fmt.Sprintf("ssrf-%d", n)
				doc := fmt.Sprintf(`{"width":50,"height":50,"layers":[{"type":"image","src":%q,"x":0,"y":0,"width":50,"height":50}]}`, c.src)
				o := createOrder(t, srv, tenant.Token, platentest.OrderBody(tenant.StoreID, id, platentest.PrintFiles(), platentest.Design(doc)))
				if st := srv.WaitPrint(t, tenant.Token, id+"-1"); st["status"] != "processingfailed" {
					t.Fatalf("print status %v", st)
				}
				reason, _ := itemPrint(t, srv, tenant.Token, o["uid"].(string), 0)["error"].(string)
				if !strings.HasPrefix(reason, "layers[0]: ") || !strings.Contains(reason, c.reason) {
					t.Errorf("reason %q, want the layer and %q", reason, c.reason)
				}
			})
		}
		if n := hits.Load(); n != 0 {
			t.Errorf("the image server was reached %d times", n)
		}

		t.Run("allowed with --allow-private-network", func(t *testing.T) {
			open := platentest.StartWith(t, b, func(c *config.Config) { c.AllowPrivateNetwork = true })
			tenant := open.Bootstrap(t, "acme", "shop-1")
			doc := fmt.Sprintf(`{"width":50,"height":50,"layers":[{"type":"image","src":%q,"x":0,"y":0,"width":50,"height":50}]}`, images.URL+"/a.jpg")
			createOrder(t, open, tenant.Token, platentest.OrderBody(tenant.StoreID, "ok", platentest.PrintFiles(), platentest.Design(doc)))
			if st := open.WaitPrint(t, tenant.Token, "ok-1"); st["status"] != "ready" {
				t.Fatalf("print status %v", st)
			}
			if hits.Load() == 0 {
				t.Error("the image server was never asked")
			}
		})
	})
}

// TestInvalidImagePort: an image URL whose port no connection can use
// fails the print at once, with the layer and the reason, on its first
// attempt: a retry cannot change the URL.
func TestInvalidImagePort(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.StartWith(t, b, func(c *config.Config) { c.AllowPrivateNetwork = true })
		tenant := srv.Bootstrap(t, "acme", "shop-1")
		for i, port := range []string{"65536", "0", "99999999999"} {
			id := fmt.Sprintf("port-%d", i)
			src := "http://127.0.0.1:" + port + "/a.jpg"
			doc := fmt.Sprintf(`{"width":50,"height":50,"layers":[{"type":"rect","x":0,"y":0,"width":5,"height":5,"fill":"#000"},{"type":"image","src":%q,"x":0,"y":0,"width":50,"height":50}]}`, src)
			start := time.Now()
			o := createOrder(t, srv, tenant.Token, platentest.OrderBody(tenant.StoreID, id, platentest.PrintFiles(), platentest.Design(doc)))
			if st := srv.WaitPrint(t, tenant.Token, id+"-1"); st["status"] != "processingfailed" {
				t.Fatalf("port %s: print status %v", port, st)
			}
			took := time.Since(start)
			reason, _ := itemPrint(t, srv, tenant.Token, o["uid"].(string), 0)["error"].(string)
			want := "layers[1]: image " + src + ": is not a valid URL: port " + port + " is not between 1 and 65535"
			if reason != want {
				t.Errorf("port %s: reason %q, want %q", port, reason, want)
			}
			jobs := srv.Jobs(t, renderjobs.RenderKind)
			if attempts := jobs[len(jobs)-1].Attempt; attempts != 1 {
				t.Errorf("port %s: %d attempts, want 1", port, attempts)
			}
			t.Logf("port %s: failed after %v", port, took.Round(time.Millisecond))
		}
	})
}

// storedFiles counts the print files in a server's local file store.
func storedFiles(t *testing.T, srv *platentest.Server) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(filepath.Join(srv.Config.DataDir, "files"), func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".pdf") {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestTemplateChangeRerenders: a PUT that changes an item's
// template_config renders it again; the link then gives the new file and
// the old file is removed. A PUT that leaves it alone keeps the file.
func TestTemplateChangeRerenders(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.StartWith(t, b, nil)
		tenant := srv.Bootstrap(t, "acme", "shop-1")
		small := `{"width":50,"height":50,"layers":[{"type":"rect","x":0,"y":0,"width":50,"height":50,"fill":"#ff0000"}]}`
		large := `{"width":100,"height":50,"layers":[{"type":"rect","x":0,"y":0,"width":100,"height":50,"fill":"#0000ff"}]}`
		uid := createOrder(t, srv, tenant.Token, platentest.OrderBody(tenant.StoreID, "9", platentest.PrintFiles(), platentest.Design(small)))["uid"].(string)
		link := srv.WaitPrint(t, tenant.Token, "9-1")["url"].(string)
		_, before := platentest.Download(t, link)

		r := srv.Do(t, "PUT", "/api/v1/orders/"+uid, tenant.Token, map[string]any{"note": "gift"})
		if r.Status != http.StatusOK {
			t.Fatalf("put note: %d %s", r.Status, r.Raw)
		}
		if p := itemPrint(t, srv, tenant.Token, uid, 0); p["status"] != "ready" {
			t.Fatalf("a PUT that kept the design moved the print: %v", p)
		}

		r = srv.Do(t, "PUT", "/api/v1/orders/"+uid, tenant.Token, map[string]any{"items": []any{platentest.OrderItem("9-1", large)}})
		if r.Status != http.StatusOK {
			t.Fatalf("put items: %d %s", r.Status, r.Raw)
		}
		if p := r.Object(t)["items"].([]any)[0].(map[string]any)["print"].(map[string]any); p["status"] != "received" || p["url"] != nil {
			t.Errorf("right after the PUT: %v", p)
		}
		st := srv.WaitPrint(t, tenant.Token, "9-1")
		if st["status"] != "ready" {
			t.Fatalf("after the PUT: %v", st)
		}
		_, after := platentest.Download(t, st["url"].(string))
		if got, want := platentest.PDFField(platentest.PDFInfo(t, after), "Page size"), "283.465 x 141.732 pts"; got != want {
			t.Errorf("re-rendered page size %q, want %q (before: %q)", got, want, platentest.PDFField(platentest.PDFInfo(t, before), "Page size"))
		}
		srv.WaitFor(t, readyTimeout, "the old file removed", func() bool { return storedFiles(t, srv) == 1 })
	})
}

// TestDeleteCancelsRenders: deleting an order cancels its renders that
// have not started, and a render running at the time stores nothing.
func TestDeleteCancelsRenders(t *testing.T) {
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
		srv := platentest.StartWith(t, b, func(c *config.Config) { c.AllowPrivateNetwork, c.RenderWorkers = true, 1 })
		tenant := srv.Bootstrap(t, "acme", "shop-1")
		doc := fmt.Sprintf(`{"width":50,"height":50,"layers":[{"type":"image","src":%q,"x":0,"y":0,"width":50,"height":50}]}`, images.URL+"/a.jpg")
		running := createOrder(t, srv, tenant.Token, platentest.OrderBody(tenant.StoreID, "r", platentest.PrintFiles(), platentest.Design(doc)))["uid"].(string)
		srv.WaitFor(t, readyTimeout, "the first render fetching its image", func() bool { return hits.Load() == 1 })
		waiting := createOrder(t, srv, tenant.Token, platentest.OrderBody(tenant.StoreID, "w", platentest.PrintFiles(), platentest.Design(doc)))["uid"].(string)

		for _, uid := range []string{waiting, running} {
			if r := srv.Do(t, "DELETE", "/api/v1/orders/"+uid, tenant.Token, nil); r.Status != http.StatusOK {
				t.Fatalf("delete: %d %s", r.Status, r.Raw)
			}
		}
		close(release)
		states := func() map[rivertype.JobState]int {
			out := map[rivertype.JobState]int{}
			for _, job := range srv.Jobs(t, renderjobs.RenderKind) {
				out[job.State]++
			}
			return out
		}
		// The waiting render is cancelled, or, when its job was being
		// postponed behind the running one at that moment (one render at a
		// time per team here), completes without rendering; the running one
		// ends cancelled or completed (River marks it as it finishes). Neither
		// stores anything, and only the first fetched its image.
		srv.WaitFor(t, readyTimeout, "both renders ended", func() bool {
			s := states()
			return s[rivertype.JobStateCancelled]+s[rivertype.JobStateCompleted] == 2
		})
		if n := storedFiles(t, srv); n != 0 {
			t.Errorf("%d files stored for deleted orders", n)
		}
		if n := hits.Load(); n != 1 {
			t.Errorf("the image server was asked %d times; the cancelled render ran", n)
		}
	})
}

// TestDeleteRemovesTheOrdersFolder: once a deleted order's files are gone,
// so is its folder in the local file store (orders/<uid>/), while another
// order's folder, which still holds its file, stays.
func TestDeleteRemovesTheOrdersFolder(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		tenant := srv.Bootstrap(t, "acme", "shop-1")
		doc := designDoc(dataURI(photo(t, 60, 40)))
		deleted := createOrder(t, srv, tenant.Token, platentest.OrderBody(tenant.StoreID, "1", platentest.PrintFiles(), platentest.Items(platentest.OrderItem("1-1", doc), platentest.OrderItem("1-2", doc))))["uid"].(string)
		kept := createOrder(t, srv, tenant.Token, platentest.OrderBody(tenant.StoreID, "2", platentest.PrintFiles(), platentest.Design(doc)))["uid"].(string)
		for _, id := range []string{"1-1", "1-2", "2-1"} {
			if st := srv.WaitPrint(t, tenant.Token, id); st["status"] != "ready" {
				t.Fatalf("print %s: %v", id, st)
			}
		}
		folder := func(uid string) string { return filepath.Join(srv.Config.DataDir, "files", "orders", uid) }
		for _, uid := range []string{deleted, kept} {
			if _, err := os.Stat(folder(uid)); err != nil {
				t.Fatalf("the order's folder before the delete: %v", err)
			}
		}
		if r := srv.Do(t, "DELETE", "/api/v1/orders/"+deleted, tenant.Token, nil); r.Status != http.StatusOK {
			t.Fatalf("delete: %d %s", r.Status, r.Raw)
		}
		srv.WaitFor(t, readyTimeout, "the deleted order's files removed", func() bool { return storedFiles(t, srv) == 1 })
		srv.WaitFor(t, readyTimeout, "the deleted order's folder removed", func() bool {
			_, err := os.Stat(folder(deleted))
			return errors.Is(err, fs.ErrNotExist)
		})
		if _, err := os.Stat(folder(kept)); err != nil {
			t.Errorf("the other order's folder: %v", err)
		}
	})
}
