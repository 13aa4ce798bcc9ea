package gateway

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/inputlimit"
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

// statusWriter remembers the status code and size of a response, and
// turns an error answer that is not JSON (http.Error's plain text, as
// http.ServeContent answers an unsatisfiable Range; an empty 412) into the
// API's JSON error body, so that every error of the HTTP port reads
// alike.
type statusWriter struct {
	http.ResponseWriter
	code  int
	bytes int
	// plain is set while such an answer is held back; text is its start.
	plain bool
	text  []byte
}

// maxPlainText is how much of a plain-text error the JSON answer quotes.
const maxPlainText = 512

func (w *statusWriter) WriteHeader(code int) {
	if ct := w.Header().Get("Content-Type"); w.code == 0 && code >= 400 && !isJSON(ct) && !isHTML(ct) {
		w.code, w.plain = code, true
		return
	}
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	if w.plain {
		w.text = append(w.text, b[:min(len(b), maxPlainText-len(w.text))]...)
		return len(b), nil
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

// finish writes the JSON answer of a held-back plain error.
func (w *statusWriter) finish(m runtime.Marshaler) {
	if !w.plain {
		return
	}
	w.plain = false
	message := strings.TrimSpace(string(w.text))
	if message == "" || !utf8.ValidString(message) {
		message = http.StatusText(w.code)
	}
	body, _ := m.Marshal(status.New(codeForHTTP(w.code), message).Proto())
	h := w.Header()
	h.Del("Content-Length")
	// A download's refusal (416, 412) is no longer the file its handler
	// named for saving.
	h.Del("Content-Disposition")
	h.Set("Content-Type", "application/json")
	w.ResponseWriter.WriteHeader(w.code)
	n, _ := w.ResponseWriter.Write(body)
	w.bytes += n
}

func isJSON(contentType string) bool { return strings.HasPrefix(contentType, "application/json") }

// isHTML is a page of the operator panel, an error page included, which
// a browser shows as it is.
func isHTML(contentType string) bool { return strings.HasPrefix(contentType, "text/html") }

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
				if p == http.ErrAbortHandler {
					// The handler asks net/http to abort the response: the
					// client sees the connection cut, not an answer, and
					// nothing is logged or counted, as it has no status.
					panic(p)
				}
				slog.ErrorContext(ctx, "panic serving request", "panic", p, "path", r.URL.Path,
					"stack", string(debug.Stack()))
				if sw.code == 0 {
					writeStatus(sw, g.codec, status.New(codes.Internal, "internal error"))
				}
			}
			sw.finish(g.codec)
			g.record(ctx, r, sw, info, time.Since(start))
		}()
		next.ServeHTTP(sw, r)
	})
}

func (g *Gateway) record(ctx context.Context, r *http.Request, sw *statusWriter, info *routeInfo, elapsed time.Duration) {
	route := routeLabel(info.pattern, r.Pattern)
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

// routeLabel is a request's route as the metrics name it: the documented
// path template, whichever router matched it (grpc-gateway's
// "/v1/shop/orders/{order_ref=**}" and net/http's "GET /healthz" both
// read as their path, "/v1/shop/orders/{order_ref}" and "/healthz"), or
// "unmatched" for a path no route serves.
func routeLabel(gatewayPattern, muxPattern string) string {
	if gatewayPattern != "" {
		return wildcards.ReplaceAllString(gatewayPattern, "}")
	}
	if _, path, ok := strings.Cut(muxPattern, " "); ok {
		muxPattern = path
	}
	if muxPattern == "" || muxPattern == "/" {
		return "unmatched"
	}
	return strings.ReplaceAll(muxPattern, "...}", "}")
}

// wildcards are a gateway path variable's pattern (=** or =*), which the
// documented path leaves out.
var wildcards = regexp.MustCompile(`=[^}]*}`)

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

// CheckRequest refuses, as 400, what would otherwise reach the gRPC side as
// a string it cannot carry or a database cannot store: a path or query
// that is not UTF-8 or holds NUL, and an Idempotency-Key that is not
// printable ASCII. It also refuses a path with an empty, "." or ".."
// segment, which Go's router would answer with a redirect to the cleaned
// path (/api/v1/orders/.. to /api/v1, an HTML 307): the API takes paths as
// sent. Wrap the whole HTTP port's router in it.
func (g *Gateway) CheckRequest(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		field, problem := "", ""
		switch {
		case !cleanText(r.URL.Path):
			field, problem = "path", "the path must be UTF-8 text without NUL characters"
		case !canonicalPath(r.URL.EscapedPath()):
			field, problem = "path", `the path must not hold empty, "." or ".." segments`
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

// canonicalPath reports whether Go's router takes the path as it is, by
// the router's own rule: path.Clean's result, with the trailing slash kept.
func canonicalPath(p string) bool {
	if p == "" || p[0] != '/' {
		return true
	}
	clean := path.Clean(p)
	if strings.HasSuffix(p, "/") && clean != "/" {
		clean += "/"
	}
	return clean == p
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

// readBody is a route's middleware, run once its token was admitted: it
// reads a POST or PUT body whole, at most MaxBodyBytes of it (413 past
// that), through the input limits' scanner, which refuses a body nested
// too deep or with too many elements (400 naming the path) at the byte
// that passes the limit, before anything is decoded. The decoder then
// works on the bytes in memory. Other methods' bodies are only bounded:
// their handlers drain them unread.
func (g *Gateway) readBody(next runtime.HandlerFunc) runtime.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, params map[string]string) {
		switch {
		case r.Body == nil || r.Body == http.NoBody:
		case r.Method != http.MethodPost && r.Method != http.MethodPut:
			r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
		case r.ContentLength > MaxBodyBytes:
			g.tooLarge(w)
			return
		default:
			release, err := g.large.acquire(r.Context(), r.ContentLength)
			if err != nil {
				noteRoute(r.Context())
				writeStatus(w, g.codec, apierr.ToStatus(r.Context(), err))
				return
			}
			defer release()
			data, err := readLimited(r.Body, r.ContentLength)
			if err != nil {
				g.bodyError(w, r, err)
				return
			}
			r.Body = &requestBody{Reader: bytes.NewReader(data), data: data}
		}
		next(w, r, params)
	}
}

var errTooLarge = errors.New("request body too large")

// firstRead is the most a body's buffer starts with: a body declaring more
// gets its room as its bytes arrive (doubling, so at most twice its size
// in all), not on its word.
const firstRead = 256 << 10

// readLimited reads body through an input-limit scanner, stopping at the
// first limit passed or past MaxBodyBytes. length is the declared length,
// or -1.
func readLimited(body io.Reader, length int64) ([]byte, error) {
	end := int64(MaxBodyBytes + 1)
	if length >= 0 {
		end = min(end, length+1)
	}
	buf := make([]byte, 0, min(end, firstRead))
	var scan inputlimit.Scanner
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) >= end {
				return nil, errTooLarge
			}
			buf = slices.Grow(buf, int(min(int64(cap(buf)), end-int64(len(buf)))))
		}
		n, err := body.Read(buf[len(buf):cap(buf)])
		if _, serr := scan.Write(buf[len(buf) : len(buf)+n]); serr != nil {
			return nil, serr
		}
		buf = buf[:len(buf)+n]
		switch {
		case errors.Is(err, io.EOF) && len(buf) > MaxBodyBytes:
			return nil, errTooLarge
		case errors.Is(err, io.EOF):
			return buf, nil
		case err != nil:
			return nil, err
		}
	}
}

func (g *Gateway) bodyError(w http.ResponseWriter, r *http.Request, err error) {
	var verr *apierr.ValidationError
	switch {
	case errors.Is(err, errTooLarge):
		g.tooLarge(w)
	case errors.As(err, &verr):
		writeStatus(w, g.codec, apierr.ToStatus(r.Context(), err))
	default:
		writeStatus(w, g.codec, status.New(codes.InvalidArgument, "could not read the request body"))
	}
}

func (g *Gateway) tooLarge(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	writeStatusCode(w, g.codec, http.StatusRequestEntityTooLarge,
		status.New(codes.InvalidArgument, "request body too large: the limit is 8 MiB"))
}
