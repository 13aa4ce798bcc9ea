package renderjobs_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/fakes3"
	"github.com/platen-print/platen/internal/platentest"
)

// readyTimeout bounds the wait for a render in these tests; a render takes
// milliseconds, so only a broken pipeline waits this long.
const readyTimeout = 30 * time.Second

// photo is a JPEG of w×h pixels, red on the left half, blue on the right.
func photo(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.RGBA{R: 220, G: 20, B: 20, A: 255}
			if x >= w/2 {
				c = color.RGBA{R: 20, G: 20, B: 220, A: 255}
			}
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// designDoc is an A6 card with 2 mm bleed: a photo filling the top half
// from src, a rectangle and a line of text.
func designDoc(src string) string {
	return fmt.Sprintf(`{"version":1,"unit":"mm","width":105,"height":148,"bleed":2,"background":"#ffffff",
	  "surfaces":[{"name":"front","layers":[
	    {"type":"image","src":%q,"x":0,"y":0,"width":105,"height":74,"fit":"cover"},
	    {"type":"rect","x":10,"y":90,"width":85,"height":30,"fill":"#f2e8d5","stroke":"#000000","stroke_width":0.3,"radius":2},
	    {"type":"text","text":"Happy birthday, Ada","font":"Go-Bold","size":14,"color":"#1a1a1a","x":10,"y":100,"width":85,"align":"center"}]}]}`, src)
}

func dataURI(data []byte) string {
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(data)
}

// templateConfig URL-encodes a document as the customiser sends it.
func templateConfig(doc string) string { return url.QueryEscape(doc) }

// platentest.NoRedirect is a client that shows redirects instead of following them.
// TestOrderToDownload: an order with create_print_files true renders, its
// status reaches ready with a url, size and sha256, and the url downloads
// the PDF of that size and digest (with Content-Type, a filename, ETag,
// Range, and on the local store the RFC 9530 digest fields), on every
// database, with the local file store and on S3.
func TestOrderToDownload(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		t.Run("local files", func(t *testing.T) {
			orderToDownload(t, platentest.StartWith(t, b, nil), false)
		})
		t.Run("s3", func(t *testing.T) {
			blobURL := fakes3.Start(t, "prints")
			srv := platentest.StartWith(t, b, func(c *config.Config) { c.BlobURL = blobURL })
			orderToDownload(t, srv, true)
		})
	})
}

// orderToDownload posts an order, waits for its print, and downloads it
// through its link; onS3 says the link must lead to S3, not to srv.
func orderToDownload(t *testing.T, srv *platentest.Server, onS3 bool) {
	t.Helper()
	tenant := srv.Bootstrap(t, "acme", "shop-1")
	doc := designDoc(dataURI(photo(t, 600, 400)))
	r := srv.Do(t, "POST", "/api/v1/orders", tenant.Token, platentest.OrderBody(tenant.StoreID, "1001", platentest.PrintFiles(), platentest.Design(doc)))
	if r.Status != http.StatusOK {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	orderUID := r.Object(t)["uid"].(string)

	st := srv.WaitPrint(t, tenant.Token, "1001-1")
	if st["status"] != "ready" {
		t.Fatalf("print status %v", st)
	}
	link, _ := st["url"].(string)
	if !strings.HasPrefix(link, srv.BaseURL+"/api/v1/print-files/") || !strings.Contains(link, "?token=") {
		t.Fatalf("url %q", link)
	}

	details := srv.Do(t, "GET", "/api/v1/orders/"+orderUID, tenant.Token, nil).Object(t)
	p := details["items"].([]any)[0].(map[string]any)["print"].(map[string]any)
	if p["status"] != "ready" || p["url"] == nil || p["error"] != nil {
		t.Fatalf("order details print %v", p)
	}

	file, data := platentest.Download(t, link)
	platentest.CheckFileDigest(t, "print status", st, data)
	platentest.CheckFileDigest(t, "order details print", p, data)
	if onS3 {
		// S3 answers the presigned URL itself: no digest fields (the
		// client checks the API's sha256).
		if file.Header.Values("Content-Digest") != nil || file.Header.Values("Repr-Digest") != nil {
			t.Errorf("S3 download with digest fields %v", file.Header)
		}
	} else {
		platentest.CheckDigestHeaders(t, "download", file, data)
	}
	if ct := file.Header.Get("Content-Type"); ct != "application/pdf" {
		t.Errorf("Content-Type %q", ct)
	}
	if cd := file.Header.Get("Content-Disposition"); !strings.Contains(cd, `1001-1001-1.pdf`) {
		t.Errorf("Content-Disposition %q", cd)
	}
	etag := file.Header.Get("ETag")
	if etag == "" {
		t.Error("no ETag")
	}
	info := platentest.PDFInfo(t, data)
	if platentest.PDFField(info, "Pages") != "1" {
		t.Errorf("pages: %s", info)
	}
	// A6 plus 2 mm bleed: 109×152 mm; the trim box is inset by 2 mm.
	if got, want := platentest.PDFField(info, "Page size"), "308.976 x 430.866 pts"; got != want {
		t.Errorf("page size %q, want %q", got, want)
	}
	if got, want := platentest.PDFField(info, "TrimBox"), "5.67 5.67 303.31 425.20"; got != want {
		t.Errorf("TrimBox %q, want %q", got, want)
	}

	loc := redirectTarget(t, link)
	if servedHere := strings.HasPrefix(loc, srv.BaseURL+"/"); servedHere == onS3 {
		t.Errorf("the link leads to %s", loc)
	}
	if onS3 && !strings.Contains(loc, "/prints/orders/") {
		t.Errorf("the S3 URL %s does not name the bucket and the order's key", loc)
	}
	partial, part := platentest.Get(t, http.DefaultClient, loc, "Range", "bytes=0-7")
	if partial.StatusCode != http.StatusPartialContent || string(part) != string(data[:8]) {
		t.Errorf("Range: %d %q", partial.StatusCode, part)
	}
	if !onS3 {
		// A 206's content is the range: Repr-Digest is the whole file's,
		// and no Content-Digest is sent.
		if got := partial.Header.Get("Repr-Digest"); got != platentest.DigestField(data) || partial.Header.Values("Content-Digest") != nil {
			t.Errorf("Range: Repr-Digest %q, Content-Digest %q; want the whole file's and none", got, partial.Header.Values("Content-Digest"))
		}
	}
	again, _ := platentest.Get(t, http.DefaultClient, loc, "If-None-Match", etag)
	if again.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", again.StatusCode)
	}
	if !onS3 {
		// The file's own refusals, which http.ServeContent writes as plain
		// text or not at all, are the API's JSON errors too.
		// Their body is no file, so nothing names it as one to save.
		resp, body := platentest.Get(t, http.DefaultClient, loc, "Range", "bytes=99999999-")
		platentest.CheckJSONError(t, resp, body, http.StatusRequestedRangeNotSatisfiable, "invalid range: failed to overlap")
		checkCode(t, body, 11) // OUT_OF_RANGE
		checkNoFileHeaders(t, resp)
		resp, body = platentest.Get(t, http.DefaultClient, loc, "If-Match", `"another"`)
		platentest.CheckJSONError(t, resp, body, http.StatusPreconditionFailed, "Precondition Failed")
		checkCode(t, body, 9) // FAILED_PRECONDITION
		checkNoFileHeaders(t, resp)
	}
}

// checkNoFileHeaders checks that an error answer to a download says
// nothing of the file as its own content.
func checkNoFileHeaders(t *testing.T, resp *http.Response) {
	t.Helper()
	for _, name := range []string{"Content-Disposition", "Content-Digest"} {
		if v := resp.Header.Values(name); v != nil {
			t.Errorf("%d answer: %s %q, want none", resp.StatusCode, name, v)
		}
	}
}

// checkCode checks the gRPC code of a JSON error body.
func checkCode(t *testing.T, body []byte, want int) {
	t.Helper()
	var e struct{ Code int }
	if err := json.Unmarshal(body, &e); err != nil || e.Code != want {
		t.Errorf("code %d (%v), want %d: %s", e.Code, err, want, body)
	}
}

func redirectTarget(t *testing.T, link string) string {
	t.Helper()
	resp, _ := platentest.Get(t, platentest.NoRedirect, link)
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("GET %s: %d", link, resp.StatusCode)
	}
	return resp.Header.Get("Location")
}

// TestDownloadLinkRefusals: a link without its token, with an altered one,
// or with another item's token answers 403 with a JSON error; a link
// whose order was deleted answers 404.
func TestDownloadLinkRefusals(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.StartWith(t, b, nil)
		tenant := srv.Bootstrap(t, "acme", "shop-1")
		doc := designDoc(dataURI(photo(t, 60, 40)))
		r := srv.Do(t, "POST", "/api/v1/orders", tenant.Token, platentest.OrderBody(tenant.StoreID, "1", platentest.PrintFiles(), platentest.Items(platentest.OrderItem("1-1", doc), platentest.OrderItem("1-2", doc))))
		if r.Status != http.StatusOK {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		orderUID := r.Object(t)["uid"].(string)
		one := srv.WaitPrint(t, tenant.Token, "1-1")["url"].(string)
		two := srv.WaitPrint(t, tenant.Token, "1-2")["url"].(string)
		u1, _ := url.Parse(one)
		u2, _ := url.Parse(two)
		token1 := u1.Query().Get("token")

		resp, body := platentest.Get(t, platentest.NoRedirect, srv.BaseURL+u1.Path)
		platentest.CheckJSONError(t, resp, body, http.StatusForbidden, "no token")

		tampered := []byte(token1)
		tampered[len(tampered)/2] ^= 1
		if tampered[len(tampered)/2] == '-' || tampered[len(tampered)/2] == '_' {
			tampered[len(tampered)/2] = 'A'
		}
		resp, body = platentest.Get(t, platentest.NoRedirect, srv.BaseURL+u1.Path+"?token="+string(tampered))
		platentest.CheckJSONError(t, resp, body, http.StatusForbidden, "")

		resp, body = platentest.Get(t, platentest.NoRedirect, srv.BaseURL+u2.Path+"?token="+token1)
		platentest.CheckJSONError(t, resp, body, http.StatusForbidden, "another file")

		if r := srv.Do(t, "DELETE", "/api/v1/orders/"+orderUID, tenant.Token, nil); r.Status != http.StatusOK {
			t.Fatalf("delete: %d %s", r.Status, r.Raw)
		}
		resp, body = platentest.Get(t, platentest.NoRedirect, one)
		platentest.CheckJSONError(t, resp, body, http.StatusNotFound, "not found")
	})
}

// TestFilesStoredBeforeDigests: a file stored before sizes and digests
// were kept (its row has none: made here by clearing them) is answered
// with size and sha256 null, in the print status, the order details and a
// Family B order, and downloads as before, without digest fields; on
// every database.
func TestFilesStoredBeforeDigests(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.StartWith(t, b, nil)
		tenant := srv.Bootstrap(t, "acme", "shop-1")
		doc := designDoc(dataURI(photo(t, 60, 40)))
		r := srv.Do(t, "POST", "/api/v1/orders", tenant.Token, platentest.OrderBody(tenant.StoreID, "1", platentest.PrintFiles(), platentest.Design(doc)))
		if r.Status != http.StatusOK {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		orderUID := r.Object(t)["uid"].(string)
		design := map[string]any{"design_version_id": "card-v1", "template_config": templateConfig(doc)}
		if r := srv.Do(t, "POST", "/api/v1/design-versions", tenant.Token, design); r.Status != http.StatusOK {
			t.Fatalf("design: %d %s", r.Status, r.Raw)
		}
		shop := map[string]any{"external_id": "SO-1", "lines": []any{map[string]any{"design_version_id": "card-v1", "quantity": 1}}}
		if r := srv.Do(t, "POST", "/v1/shop/orders", tenant.Token, shop); r.Status != http.StatusCreated {
			t.Fatalf("shop order: %d %s", r.Status, r.Raw)
		}
		if st := srv.WaitPrint(t, tenant.Token, "1-1"); st["status"] != "ready" || st["sha256"] == nil {
			t.Fatalf("print status %v, want ready with its sha256", st)
		}
		shopFile := func() map[string]any {
			t.Helper()
			order := srv.WaitShopOrder(t, tenant.Token, "SO-1")
			p := order["lines"].([]any)[0].(map[string]any)["prints"].([]any)[0].(map[string]any)
			files, _ := p["files"].([]any)
			if p["status"] != "ready" || len(files) != 1 {
				t.Fatalf("shop print %v", p)
			}
			return files[0].(map[string]any)
		}
		if f := shopFile(); f["sha256"] == nil {
			t.Fatalf("shop file %v, want its sha256", f)
		}

		// The rows as a file stored before this release left them.
		for _, stmt := range []string{
			"UPDATE order_items SET print_file_size = NULL, print_file_sha256 = NULL",
			"UPDATE shop_prints SET file_digests = NULL",
		} {
			if _, err := srv.DB().JobPool().ExecContext(t.Context(), stmt); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}

		st := srv.WaitPrint(t, tenant.Token, "1-1")
		platentest.CheckNoFileDigest(t, "print status", st)
		details := srv.Do(t, "GET", "/api/v1/orders/"+orderUID, tenant.Token, nil).Object(t)
		platentest.CheckNoFileDigest(t, "order details print", details["items"].([]any)[0].(map[string]any)["print"].(map[string]any))
		f := shopFile()
		platentest.CheckNoFileDigest(t, "shop file", f)
		for what, link := range map[string]string{"Family A": st["url"].(string), "Family B": f["url"].(string)} {
			resp, data := platentest.Download(t, link)
			if len(data) == 0 || resp.Header.Values("Content-Digest") != nil || resp.Header.Values("Repr-Digest") != nil {
				t.Errorf("%s: %d bytes, headers %v; want the file without digest fields", what, len(data), resp.Header)
			}
		}
	})
}
