package shop_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/platentest"
)

// Designs of the tests: a card with a front and a back, and a one-surface
// sticker. Sizes in mm; the PDFs' pages are these plus 2 mm bleed a side.
const (
	cardDoc    = `{"width":105,"height":148,"bleed":2,"surfaces":[{"name":"front","layers":[{"type":"rect","x":0,"y":0,"width":105,"height":148,"fill":"#c03030"}]},{"name":"back","layers":[{"type":"text","text":"Thank you","size":14,"x":10,"y":10,"width":85}]}]}`
	stickerDoc = `{"width":50,"height":50,"bleed":2,"layers":[{"type":"rect","x":5,"y":5,"width":40,"height":40,"fill":"#3030c0","radius":4}]}`
)

const readyTimeout = 30 * time.Second

// register adds a design version to the tenant's team.
func register(t *testing.T, srv *platentest.Server, token, id, doc string) {
	t.Helper()
	body := map[string]any{"design_version_id": id, "template_config": url.QueryEscape(doc), "thumbnails": []string{"https://example.com/t.png"}}
	if r := srv.Do(t, "POST", "/api/v1/design-versions", token, body); r.Status != http.StatusOK {
		t.Fatalf("register %s: %d %s", id, r.Status, r.Raw)
	}
}

func line(design string, quantity int, externalID string) map[string]any {
	l := map[string]any{"design_version_id": design, "quantity": quantity}
	if externalID != "" {
		l["external_id"] = externalID
	}
	return l
}

// shopOrder is a Family B order (POST /v1/shop/orders) of lines.
func shopOrder(externalID string, lines ...map[string]any) map[string]any {
	return map[string]any{"external_id": externalID, "lines": lines}
}

// data returns the shop order of an answer, checking its status.
func data(t *testing.T, r *platentest.Response, status int) map[string]any {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Raw)
	}
	d, ok := r.Object(t)["data"].(map[string]any)
	if !ok {
		t.Fatalf("no data object: %s", r.Raw)
	}
	return d
}

// prints returns the single print of each line, in line order.
func prints(t *testing.T, order map[string]any) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range order["lines"].([]any) {
		ps := l.(map[string]any)["prints"].([]any)
		if len(ps) != 1 {
			t.Fatalf("a line has %d prints, want 1: %v", len(ps), l)
		}
		out = append(out, ps[0].(map[string]any))
	}
	return out
}

// TestShopOrderToDownload: a two-line order answers 201 with every print
// processing and no files, polls (by reference_number and by external_id)
// to ready with one file per design surface, each with its size and
// sha256, and each file downloads as a one-page PDF of its surface, of
// that size and digest (Content-Digest says so too); on both databases.
func TestShopOrderToDownload(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		shopA := srv.Bootstrap(t, "acme", "acme-shop")
		register(t, srv, shopA.Token, "card-v1", cardDoc)
		register(t, srv, shopA.Token, "sticker-v1", stickerDoc)

		created := data(t, srv.Do(t, "POST", "/v1/shop/orders", shopA.Token,
			shopOrder("SO-1001", line("card-v1", 3, "L-1"), line("sticker-v1", 10, ""))), http.StatusCreated)
		ref, _ := created["reference_number"].(string)
		if len(ref) != 9 || ref[4] != '-' {
			t.Errorf("reference_number %q, want the form XXXX-XXXX", ref)
		}
		if created["external_id"] != "SO-1001" {
			t.Errorf("external_id %v", created["external_id"])
		}
		lines := created["lines"].([]any)
		wantLines := []struct {
			id, design string
			quantity   float64
		}{{"L-1", "card-v1", 3}, {"2", "sticker-v1", 10}}
		for i, want := range wantLines {
			l := lines[i].(map[string]any)
			if l["external_id"] != want.id || l["design_version_id"] != want.design || l["quantity"] != want.quantity {
				t.Errorf("lines[%d] = %v, want %+v", i, l, want)
			}
		}
		// The 201 answers the order as stored, before any render could run:
		// every print processing, with an id and no files.
		for i, p := range prints(t, created) {
			if id, _ := p["id"].(string); id == "" || p["status"] != "processing" {
				t.Errorf("created print %d: %v, want an id and status processing", i, p)
			}
			if files, ok := p["files"].([]any); !ok || len(files) != 0 {
				t.Errorf("created print %d: files %v, want none", i, p["files"])
			}
		}

		ready := srv.WaitShopOrder(t, shopA.Token, ref)
		byExternal := data(t, srv.Do(t, "GET", "/v1/shop/orders/SO-1001", shopA.Token, nil), http.StatusOK)
		if byExternal["reference_number"] != ref {
			t.Errorf("by external_id: reference_number %v, want %s", byExternal["reference_number"], ref)
		}
		// The card: two files (front, back), 109 × 152 mm pages; the
		// sticker: one, 54 × 54 mm.
		wantFiles := []struct {
			copies float64
			pages  []string
		}{{3, []string{"308.976 x 430.866 pts", "308.976 x 430.866 pts"}}, {10, []string{"153.071 x 153.071 pts"}}}
		for i, p := range prints(t, ready) {
			if p["status"] != "ready" {
				t.Fatalf("print %d: %v", i, p)
			}
			files := p["files"].([]any)
			if len(files) != len(wantFiles[i].pages) {
				t.Fatalf("print %d has %d files, want %d", i, len(files), len(wantFiles[i].pages))
			}
			for j, f := range files {
				f := f.(map[string]any)
				if f["index"] != float64(j+1) || f["type"] != "single_file" || f["copies"] != wantFiles[i].copies {
					t.Errorf("print %d file %d: %v", i, j, f)
				}
				link := f["url"].(string)
				prefix := fmt.Sprintf("%s/v1/shop/files/%s/%d?token=", srv.BaseURL, p["id"], j+1)
				if !strings.HasPrefix(link, prefix) {
					t.Errorf("url %s, want %s…", link, prefix)
				}
				resp, pdf := platentest.Download(t, link)
				if ct := resp.Header.Get("Content-Type"); ct != "application/pdf" {
					t.Errorf("Content-Type %q", ct)
				}
				what := fmt.Sprintf("print %d file %d", i, j+1)
				platentest.CheckFileDigest(t, what, f, pdf)
				platentest.CheckDigestHeaders(t, what, resp, pdf)
				info := platentest.PDFInfo(t, pdf)
				if got := platentest.PDFField(info, "Pages"); got != "1" {
					t.Errorf("print %d file %d: %s pages, want 1", i, j+1, got)
				}
				if got := platentest.PDFField(info, "Page size"); got != wantFiles[i].pages[j] {
					t.Errorf("print %d file %d: page size %q, want %q", i, j+1, got, wantFiles[i].pages[j])
				}
			}
		}
	})
}
