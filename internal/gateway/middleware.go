package gateway

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/logging"
)

// requestIDHeader is read from clients, echoed, and forwarded to gRPC.
const requestIDHeader = "X-Request-Id"

// routeInfo is filled in by the gateway once it matched a route, so that
// the outer middleware can label metrics and logs by route pattern.
type routeInfo struct{ pattern string }

type routeInfoKey struct{}

// noteRoute records the matched route pattern for the outer middleware. The
// gateway annotates the pattern into the context inside its handler, so this
// runs where that context is seen: on the response and on the error path.
func noteRoute(ctx context.Context) {
	if info, ok := ctx.Value(routeInfoKey{}).(*routeInfo); ok {
		info.pattern, _ = runtime.HTTPPathPattern(ctx)
	}
}

// statusWriter remembers the status code and size of a response.
type statusWriter struct {
	http.ResponseWriter
	code  int
	bytes int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Observe is the outermost middleware: request id, access log, metrics and
// panic recovery for every HTTP request, the API's and those beside it.
func (g *Gateway) Observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get(requestIDHeader)
		if !logging.ValidRequestID(id) {
			id = logging.NewRequestID()
			r.Header.Set(requestIDHeader, id)
		}
		w.Header().Set(requestIDHeader, id)
		info := &routeInfo{}
		ctx := logging.WithRequestID(context.WithValue(r.Context(), routeInfoKey{}, info), id)
		sw := &statusWriter{ResponseWriter: w}
		r = r.WithContext(ctx)
		defer func() {
			if p := recover(); p != nil {
				slog.ErrorContext(ctx, "panic serving request", "panic", p, "path", r.URL.Path)
				if sw.code == 0 {
					writeStatus(sw, g.codec, status.New(codes.Internal, "internal error"))
				}
			}
			g.record(ctx, r, sw, info, time.Since(start))
		}()
		next.ServeHTTP(sw, r)
	})
}

func (g *Gateway) record(ctx context.Context, r *http.Request, sw *statusWriter, info *routeInfo, elapsed time.Duration) {
	route := info.pattern
	if route == "" && r.Pattern != "" && r.Pattern != "/" {
		route = r.Pattern // an endpoint beside the API, such as GET /healthz
	}
	if route == "" {
		route = "unmatched"
	}
	code := sw.code
	if code == 0 {
		code = http.StatusOK
	}
	method := methodLabel(r.Method)
	g.metrics.requests.WithLabelValues(route, method, strconv.Itoa(code)).Inc()
	g.metrics.latency.WithLabelValues(route, method).Observe(elapsed.Seconds())
	if g.accessLog {
		slog.LogAttrs(ctx, slog.LevelInfo, "http request",
			slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.String("route", route),
			slog.Int("status", code), slog.Int("bytes", sw.bytes),
			slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000))
	}
}

// methodLabel keeps the metrics' method label to a fixed set: a client
// must not be able to mint series with made-up methods.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete,
		http.MethodPatch, http.MethodHead, http.MethodOptions:
		return method
	}
	return "OTHER"
}

// checkRequest refuses, as 400, what would otherwise reach the gRPC side as
// a string it cannot carry or a database cannot store: a path or query
// that is not UTF-8 or holds NUL, and an Idempotency-Key that is not
// printable ASCII.
func (g *Gateway) checkRequest(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		field, problem := "", ""
		switch {
		case !cleanText(r.URL.Path):
			field, problem = "path", "the path must be UTF-8 text without NUL characters"
		case !cleanQuery(r.URL.RawQuery):
			field, problem = "query", "query parameters must be UTF-8 text without NUL characters"
		case !printableASCII(r.Header.Get("Idempotency-Key")):
			field, problem = "Idempotency-Key", "must be printable ASCII"
		}
		if problem != "" {
			writeStatus(w, g.codec, apierr.ToStatus(r.Context(), apierr.Invalid(field, "%s", problem)))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func cleanText(s string) bool { return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 }

func cleanQuery(raw string) bool {
	if raw == "" {
		return true
	}
	values, err := url.ParseQuery(raw)
	if err != nil {
		return false
	}
	for k, vs := range values {
		if !cleanText(k) {
			return false
		}
		for _, v := range vs {
			if !cleanText(v) {
				return false
			}
		}
	}
	return true
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// limitBody reads the whole body up front, at most MaxBodyBytes of it: over
// that the answer is 413 before any decoding. The decoder then works on the
// bytes in memory.
func (g *Gateway) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		if r.ContentLength > MaxBodyBytes {
			g.tooLarge(w)
			return
		}
		data, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
		if err != nil {
			writeStatus(w, g.codec, status.New(codes.InvalidArgument, "could not read the request body"))
			return
		}
		if len(data) > MaxBodyBytes {
			g.tooLarge(w)
			return
		}
		r.Body = &requestBody{Reader: bytes.NewReader(data), data: data}
		next.ServeHTTP(w, r)
	})
}

func (g *Gateway) tooLarge(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	writeStatusCode(w, g.codec, http.StatusRequestEntityTooLarge,
		status.New(codes.InvalidArgument, "request body too large: the limit is 8 MiB"))
}
