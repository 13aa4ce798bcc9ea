// This file serves the API's OpenAPI 3.1 document (/openapi.json),
// generated from the protos into gen/openapi, and a reference page of it
// (/docs) drawn by Redoc, vendored in static/ with its licence (MIT) and
// the notices of what its bundle holds.

package openapidoc

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"net/http"
	"time"
)

// Paths where the server mounts the handlers (GET and HEAD).
const (
	DocumentPath = "/openapi.json"
	PagePath     = "/docs"
	ScriptPath   = "/docs/redoc.standalone.js"
)

//go:embed static/redoc.standalone.js
var redocScript []byte

// page loads the document by relative URLs, so that it works behind a proxy
// that serves the API under a path of its own.
const page = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Platen API reference</title>
<style>body { margin: 0; }</style>
</head>
<body>
<redoc spec-url="openapi.json"></redoc>
<script src="docs/redoc.standalone.js"></script>
</body>
</html>
`

// pagePolicy lets the page run the vendored script only: Redoc injects its
// styles and starts its search worker from a blob.
const pagePolicy = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src blob:; " +
	"frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// Document answers the OpenAPI document, gen/openapi's (passed in: this
// package makes that document, so it cannot import it and still build while
// gen/ is being regenerated). Any origin may read it (it holds nothing
// secret), so that editors and client generators in a browser can.
func Document(document []byte) http.Handler {
	return static(document, "application/json", func(h http.Header) {
		h.Set("Access-Control-Allow-Origin", "*")
	})
}

// Page answers the reference page.
func Page() http.Handler {
	return static([]byte(page), "text/html; charset=utf-8", func(h http.Header) {
		h.Set("Content-Security-Policy", pagePolicy)
		h.Set("X-Frame-Options", "DENY")
	})
}

// Script answers the vendored Redoc bundle.
func Script() http.Handler {
	return static(redocScript, "text/javascript; charset=utf-8", nil)
}

// static answers content with its type, a strong ETag (so that a client
// revalidates cheaply: 304), and no-cache (so that it always does, and sees
// a new version at once).
func static(content []byte, contentType string, headers func(http.Header)) http.Handler {
	sum := sha256.Sum256(content)
	etag := `"` + hex.EncodeToString(sum[:16]) + `"`
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", contentType)
		h.Set("ETag", etag)
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Content-Type-Options", "nosniff")
		if headers != nil {
			headers(h)
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(content))
	})
}
