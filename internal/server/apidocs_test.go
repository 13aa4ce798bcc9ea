package server_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/platen-print/platen/gen/openapi"
	"github.com/platen-print/platen/internal/platentest"
)

// The OpenAPI document and its reference page are served without a token,
// GET and HEAD only, revalidated by ETag.
func TestOpenAPIDocumentAndPage(t *testing.T) {
	s := platentest.Start(t, platentest.SQLite())

	r := s.Do(t, "GET", "/openapi.json", "", nil)
	if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "application/json" || !bytes.Equal(r.Raw, openapi.Document) {
		t.Fatalf("GET /openapi.json: %d %s, %d bytes", r.Status, r.Header.Get("Content-Type"), len(r.Raw))
	}
	if r.Header.Get("Access-Control-Allow-Origin") != "*" || r.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("headers %v", r.Header)
	}
	etag := r.Header.Get("ETag")
	if r := s.Do(t, "GET", "/openapi.json", "", nil, "If-None-Match", etag); r.Status != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", r.Status)
	}
	// Gzipped, the document is another representation: another tag, which
	// revalidates as well.
	get := func(headers ...string) *http.Response {
		resp, _ := platentest.Get(t, http.DefaultClient, s.BaseURL+"/openapi.json", headers...)
		return resp
	}
	identity, gzipped := get("Accept-Encoding", "identity"), get("Accept-Encoding", "gzip")
	plainTag, gzipTag := identity.Header.Get("ETag"), gzipped.Header.Get("ETag")
	if gzipped.Header.Get("Content-Encoding") != "gzip" || plainTag == "" || gzipTag == plainTag ||
		gzipTag != strings.TrimSuffix(plainTag, `"`)+`-gzip"` {
		t.Errorf("ETag %q identity, %q gzip (Content-Encoding %q): want the gzip one suffixed",
			plainTag, gzipTag, gzipped.Header.Get("Content-Encoding"))
	}
	for _, c := range []struct{ coding, tag string }{{"gzip", gzipTag}, {"identity", plainTag}} {
		r := get("Accept-Encoding", c.coding, "If-None-Match", c.tag)
		if r.StatusCode != http.StatusNotModified || r.Header.Get("ETag") != c.tag {
			t.Errorf("If-None-Match %s (%s): %d, ETag %q", c.tag, c.coding, r.StatusCode, r.Header.Get("ETag"))
		}
	}
	if r := get("Accept-Encoding", "gzip", "If-None-Match", `"other-gzip"`); r.StatusCode != http.StatusOK {
		t.Errorf("If-None-Match of another document: %d", r.StatusCode)
	}
	if r := s.Do(t, "HEAD", "/openapi.json", "", nil); r.Status != http.StatusOK || len(r.Raw) != 0 {
		t.Errorf("HEAD: %d, %d bytes", r.Status, len(r.Raw))
	}
	for _, path := range []string{"/openapi.json", "/docs", "/docs/redoc.standalone.js"} {
		r := s.Do(t, "POST", path, "", "{}")
		platentest.ErrorBody(t, r, http.StatusMethodNotAllowed)
		if allow := r.Header.Get("Allow"); allow != "GET, HEAD" {
			t.Errorf("POST %s: Allow %q", path, allow)
		}
	}

	page := s.Do(t, "GET", "/docs", "", nil)
	if page.Status != http.StatusOK || !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(string(page.Raw), `<redoc spec-url="openapi.json">`) ||
		!strings.Contains(string(page.Raw), `src="docs/redoc.standalone.js"`) {
		t.Fatalf("GET /docs: %d %s", page.Status, page.Raw)
	}
	if csp := page.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("CSP %q", csp)
	}
	script := s.Do(t, "GET", "/docs/redoc.standalone.js", "", nil)
	if script.Status != http.StatusOK || !strings.HasPrefix(script.Header.Get("Content-Type"), "text/javascript") || len(script.Raw) < 100_000 {
		t.Errorf("GET the script: %d %s, %d bytes", script.Status, script.Header.Get("Content-Type"), len(script.Raw))
	}
}
