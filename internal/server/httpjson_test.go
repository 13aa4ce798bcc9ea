package server_test

import (
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/platen-print/platen/internal/platentest"
)

// Every error answer of the HTTP port is the API's JSON error body,
// including the paths Go's router would redirect and the requests net/http
// refuses before any handler runs.
func TestHTTPErrorsAreJSON(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")

		t.Run("paths the router would clean", func(t *testing.T) {
			const message = `path: the path must not hold empty, "." or ".." segments`
			for _, path := range []string{"/api/v1/orders/..", "//api/v1/orders", "/api/v1/orders/./x", "/healthz/..", "/files/../x"} {
				t.Run(path, func(t *testing.T) {
					r := srv.Do(t, "GET", path, acme.Token, nil)
					wantError(t, r, 400, codes.InvalidArgument, message, "path")
					if loc := r.Header.Get("Location"); loc != "" {
						t.Errorf("redirects to %s", loc)
					}
				})
			}
		})
		t.Run("a percent-encoded .. is an id like any other", func(t *testing.T) {
			wantError(t, srv.Do(t, "GET", "/api/v1/orders/%2e%2e", acme.Token, nil), 404, codes.NotFound, `order ".." not found`)
		})
		t.Run("/files without its slash", func(t *testing.T) {
			wantError(t, srv.Do(t, "GET", "/files", "", nil), 404, codes.NotFound, "Not Found")
		})

		// net/http's own refusals, sent as raw bytes.
		const malformed = "malformed request: the request line or a header cannot be read (control characters are not allowed in header values)"
		get := func(headers string) string {
			return "GET /api/v1/orders HTTP/1.1\r\nHost: platen\r\n" + headers + "\r\n"
		}
		for _, tc := range []struct {
			name, request string
			status        int
			code          codes.Code
			message       string
		}{
			{"a control byte in the Authorization header", get("Authorization: Bearer \x01bad\r\n"), 400, codes.InvalidArgument, malformed},
			{"a DEL in a header value", get("Authorization: Bearer a\x7fb\r\n"), 400, codes.InvalidArgument, malformed},
			{"a space in a header name", get("Bad Header: x\r\n"), 400, codes.InvalidArgument, "invalid header name"},
			{"no Host", "GET /api/v1/orders HTTP/1.1\r\n\r\n", 400, codes.InvalidArgument, "missing required Host header"},
			// At least 14 bytes: a shorter start waits for the rest of a possible
			// h2c preface, until the header timeout.
			{"not a request line", "HELLO, THIS IS NOT HTTP\r\n\r\n", 400, codes.InvalidArgument, malformed},
			{"headers over 1 MiB", get("X-Big: " + strings.Repeat("x", 1<<20+8<<10) + "\r\n"), 431, codes.InvalidArgument,
				"request headers too large: the limit is 1 MiB"},
			{"an unknown Transfer-Encoding", "POST /api/v1/orders HTTP/1.1\r\nHost: platen\r\nTransfer-Encoding: zip\r\n\r\n",
				501, codes.Unimplemented, "unsupported transfer encoding"},
			{"an Expect other than 100-continue", get("Expect: the-unexpected\r\n"), 417, codes.InvalidArgument,
				"the Expect header can only be 100-continue"},
			{"HTTP/3 on an HTTP/1 port", "GET / HTTP/3.0\r\nHost: platen\r\n\r\n", 505, codes.Unimplemented, "unsupported protocol version"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				wantError(t, rawHTTP(t, srv, tc.request), tc.status, tc.code, tc.message)
			})
		}
	})
}
