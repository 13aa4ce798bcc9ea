package server_test

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/platen-print/platen/internal/platentest"
)

// TestHTTPConventions: HEAD answers wherever GET does, without a body;
// every 405 names the methods that work in Allow, the endpoints beside the
// API included; JSON answers of 1 KiB or more are gzipped for clients that
// accept it, smaller ones and files are not; and an HTTP/2 client that
// speaks it without TLS from the first byte (h2c) is served.
func TestHTTPConventions(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		var uid string
		for i := range 12 {
			r := srv.Do(t, "POST", "/api/v1/orders", acme.Token, map[string]any{"store_id": "acme-shop", "ecommerce_order_id": fmt.Sprint(1000 + i),
				"items": []map[string]any{{"ecommerce_order_item_id": fmt.Sprintf("%d-1", 1000+i), "ecommerce_variant_id": "v", "quantity": 1,
					"template_config": "%7B%22width%22%3A10%2C%22height%22%3A10%2C%22layers%22%3A%5B%5D%7D", "thumbnails": []string{"https://cdn.example.com/t.png"}}}})
			if r.Status != http.StatusOK {
				t.Fatalf("order: %d %s", r.Status, r.Raw)
			}
			uid = r.Object(t)["uid"].(string)
		}

		for _, path := range []string{"/api/v1/orders/" + uid, "/api/v1/order-items/1000-1/print", "/healthz"} {
			get, head := srv.Do(t, "GET", path, acme.Token, nil), srv.Do(t, "HEAD", path, acme.Token, nil)
			if head.Status != http.StatusOK || len(head.Raw) != 0 || head.Header.Get("Content-Type") != get.Header.Get("Content-Type") {
				t.Errorf("HEAD %s: %d, %d bytes, %q; GET: %d %q", path, head.Status, len(head.Raw), head.Header.Get("Content-Type"), get.Status, get.Header.Get("Content-Type"))
			}
		}
		if head := srv.Do(t, "HEAD", "/api/v1/orders/"+uid, "", nil); head.Status != http.StatusUnauthorized {
			t.Errorf("HEAD without a token: %d", head.Status)
		}

		for path, allow := range map[string]string{
			"/api/v1/orders/" + uid:       "GET, HEAD, PUT, DELETE",
			"/api/v1/orders":              "GET, HEAD, POST",
			"/api/v1/order-items/x/print": "GET, HEAD",
		} {
			r := srv.Do(t, "PATCH", path, acme.Token, map[string]any{})
			wantError(t, r, http.StatusMethodNotAllowed, codes.Unimplemented, "Method Not Allowed")
			if got := r.Header.Get("Allow"); got != allow {
				t.Errorf("PATCH %s: Allow %q, want %q", path, got, allow)
			}
		}
		for _, path := range []string{"/healthz", "/readyz", "/metrics", "/api/v1/print-files/x", "/v1/shop/files/x/1", "/api/v1/batch-files/x/1"} {
			r := srv.Do(t, "POST", path, "", map[string]any{})
			wantError(t, r, http.StatusMethodNotAllowed, codes.Unimplemented, "Method Not Allowed")
			if got := r.Header.Get("Allow"); got != "GET, HEAD" {
				t.Errorf("POST %s: Allow %q", path, got)
			}
		}

		list := gzipped(t, srv.BaseURL+"/api/v1/orders?page_size=12", acme.Token)
		if list.encoding != "gzip" || !strings.Contains(list.vary, "Accept-Encoding") {
			t.Errorf("a %d-byte list: Content-Encoding %q, Vary %q", len(list.body), list.encoding, list.vary)
		}
		var orders struct {
			Orders []json.RawMessage `json:"orders"`
		}
		if err := json.Unmarshal(list.body, &orders); err != nil || len(orders.Orders) != 12 {
			t.Errorf("the gzipped list: %v, %d orders", err, len(orders.Orders))
		}
		if small := gzipped(t, srv.BaseURL+"/healthz", ""); small.encoding != "" {
			t.Errorf("a small answer: Content-Encoding %q", small.encoding)
		}

		h2c := &http.Client{Transport: &http.Transport{Protocols: unencryptedHTTP2()}}
		resp, err := h2c.Get(srv.BaseURL + "/healthz")
		if err != nil {
			t.Fatalf("h2c: %v", err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.ProtoMajor != 2 {
			t.Errorf("h2c: %d over %s", resp.StatusCode, resp.Proto)
		}
	})
}

// answer is a response read as it came: its body decompressed by hand.
type answer struct {
	encoding, vary string
	body           []byte
}

// gzipped GETs url asking for gzip, so that the transport leaves the
// answer as it is, and decompresses it here.
func gzipped(t *testing.T, url, token string) answer {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "gzip")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	a := answer{encoding: resp.Header.Get("Content-Encoding"), vary: resp.Header.Get("Vary")}
	var r io.Reader = resp.Body
	if a.encoding == "gzip" {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	if a.body, err = io.ReadAll(r); err != nil {
		t.Fatal(err)
	}
	return a
}

func unencryptedHTTP2() *http.Protocols {
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	return p
}
