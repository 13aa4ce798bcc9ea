package gateway

import (
	"context"
	"net/http"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/gzip"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The HTTP conventions clients and their libraries rely on (RFC 9110): HEAD
// wherever GET works, an Allow header on every 405, and compressed answers
// for clients that accept them.

// probeKey marks a request that only asks whether a route exists for its
// method: the first middleware answers it before anything runs.
type probeKey struct{}

// probed is the status a probe's matched route answers.
const probed = http.StatusNoContent

// methods are the methods the API's routes use, in the order Allow lists
// them.
var methods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// allowed lists the methods mux routes r's path for, HEAD beside GET, by
// asking the router itself: a 405 names what would have worked.
func allowed(mux *runtime.ServeMux, r *http.Request) string {
	var allow []string
	for _, m := range methods {
		probe := r.Clone(context.WithValue(r.Context(), probeKey{}, true))
		probe.Method, probe.Body, probe.ContentLength = m, http.NoBody, 0
		w := &probeWriter{header: http.Header{}}
		mux.ServeHTTP(w, probe)
		if w.code == probed {
			allow = append(allow, m)
			if m == http.MethodGet {
				allow = append(allow, http.MethodHead)
			}
		}
	}
	return strings.Join(allow, ", ")
}

func isProbe(ctx context.Context) bool { return ctx.Value(probeKey{}) != nil }

// probeWriter keeps a probe's status and discards the rest.
type probeWriter struct {
	header http.Header
	code   int
}

func (w *probeWriter) Header() http.Header { return w.header }
func (w *probeWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}
func (w *probeWriter) Write(b []byte) (int, error) { w.WriteHeader(http.StatusOK); return len(b), nil }

// MethodNotAllowed answers every request with 405 and the API's error
// body, naming the methods that work in Allow: for the endpoints served
// beside the API (/healthz, download links), whose other methods would
// otherwise reach the API's router and read as 404.
func MethodNotAllowed(allow ...string) http.Handler {
	header := strings.Join(allow, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Allow", header)
		writeStatusCode(w, defaultCodec, http.StatusMethodNotAllowed, status.New(codes.Unimplemented, "Method Not Allowed"))
	})
}

// defaultCodec writes the error bodies of handlers outside a gateway.
var defaultCodec = newCodec()

// compressible are the answers worth compressing: JSON, the panel's pages,
// scripts and drawings. Files (PDF, PNG) are compressed already.
var compressible = []string{"application/json", "text/html", "text/plain", "text/css", "text/javascript", "application/javascript", "image/svg+xml"}

// Compress gzips answers of 1 KiB or more for clients that accept gzip
// (zstd for those that prefer it), with Vary: Accept-Encoding. It
// compresses at the fastest level: an order answers its items'
// template_config as sent, a megabyte of base64 when a design carries its
// photo, and the default level spent a third of such a POST's time there
// (BENCHMARKS.md) for a few per cent of size.
//
// A compressed answer is another representation, so its strong ETag gets
// the coding as a suffix ("…-gzip"), as RFC 9110 requires. A revalidation
// with such a tag is matched against the handler's own tag, and its 304
// names the tag the client sent.
func Compress(next http.Handler) http.Handler {
	wrap, err := gzhttp.NewWrapper(gzhttp.MinSize(1024), gzhttp.ContentTypes(compressible),
		gzhttp.CompressionLevel(gzip.BestSpeed), gzhttp.SuffixETag(gzipETagSuffix))
	if err != nil {
		panic(err) // the options above are constant and valid
	}
	compressed := wrap(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if suffix := uncodeIfNoneMatch(r); suffix != "" {
			w = &codedNotModified{ResponseWriter: w, suffix: suffix}
		}
		compressed.ServeHTTP(w, r)
	})
}

// gzipETagSuffix is what gzhttp adds inside a compressed answer's ETag;
// zstd's is "-zstd".
const gzipETagSuffix = "-gzip"

// uncodeIfNoneMatch takes the coding's suffix off the entity tags of r's
// If-None-Match, so that the handler compares them with its own, and
// returns the suffix it took ("" when none had one).
func uncodeIfNoneMatch(r *http.Request) string {
	value := r.Header.Get("If-None-Match")
	taken := ""
	for _, suffix := range []string{gzipETagSuffix, "-zstd"} {
		if plain := strings.ReplaceAll(value, suffix+`"`, `"`); plain != value {
			value, taken = plain, suffix
		}
	}
	if taken != "" {
		r.Header.Set("If-None-Match", value)
	}
	return taken
}

// codedNotModified gives a 304 the coded tag the client revalidated.
type codedNotModified struct {
	http.ResponseWriter
	suffix string
}

func (w *codedNotModified) WriteHeader(code int) {
	if etag := w.Header().Get("ETag"); code == http.StatusNotModified && strings.HasSuffix(etag, `"`) {
		w.Header().Set("ETag", strings.TrimSuffix(etag, `"`)+w.suffix+`"`)
	}
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *codedNotModified) Unwrap() http.ResponseWriter { return w.ResponseWriter }
