package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/platen-print/platen/gen/openapi"
	"github.com/platen-print/platen/internal/downloads"
	"github.com/platen-print/platen/internal/files"
	"github.com/platen-print/platen/internal/gateway"
	"github.com/platen-print/platen/internal/openapidoc"
	"github.com/platen-print/platen/internal/panel"
	"github.com/platen-print/platen/internal/readiness"
)

// routes puts the operational endpoints beside the REST API, all behind the
// gateway's request checks, request id, access log and metrics. These
// answer without a token: /healthz, /readyz, /metrics, the OpenAPI document
// and its reference page (/openapi.json, /docs), and download links, which
// carry a signed token of their own. Every API route needs one.
func (s *Server) routes(gw *gateway.Gateway) http.Handler {
	mux := http.NewServeMux()
	getOnly := func(pattern string, h http.Handler) {
		mux.Handle("GET "+pattern, h) // GET patterns take HEAD too
		mux.Handle(pattern, gateway.MethodNotAllowed(http.MethodGet, http.MethodHead))
	}
	getOnly("/healthz", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, `{"status":"ok"}`)
	}))
	getOnly("/readyz", http.HandlerFunc(s.ready))
	// Compress, around every route, compresses the scrape; promhttp's own
	// would send Vary: Accept-Encoding a second time.
	getOnly("/metrics", promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{DisableCompression: true}))
	getOnly(openapidoc.DocumentPath, openapidoc.Document(openapi.Document))
	getOnly(openapidoc.PagePath, openapidoc.Page())
	getOnly(openapidoc.ScriptPath, openapidoc.Script())
	getOnly(downloads.ItemRoutePrefix+"{item_uid}", http.HandlerFunc(s.links.ServeItem))
	getOnly(downloads.ShopRoutePrefix+"{print_id}/{index}", http.HandlerFunc(s.links.ServeShopFile))
	getOnly(downloads.BatchRoutePrefix+"{batch_uid}/{index}", http.HandlerFunc(s.links.ServeBatchFile))
	// The wildcard names the route as the OpenAPI document does, /files/{key}.
	mux.Handle(files.PathPrefix+"{key...}", s.files.Handler())
	// The operator panel signs operators in itself (a session cookie), and
	// acts through the operator API's methods as them.
	mux.Handle("/operator/", panel.New(s.db.Operators(), s.operatorAPI, s.previews, files.SignedURLOrigin(s.cfg.BlobURL)))
	// Without it the router would redirect /files to /files/ (an HTML 307);
	// the gateway answers it as any unknown path, a JSON 404.
	mux.Handle(strings.TrimSuffix(files.PathPrefix, "/"), gw)
	mux.Handle("/", gw)
	return gw.Observe(gw.CheckRequest(gateway.Compress(mux)))
}

// ready answers 200 when the database answers and takes a write (checked
// at most once a second, see readiness), 503 otherwise or once shutdown
// began.
func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	if s.draining.Load() {
		writeJSON(w, http.StatusServiceUnavailable, `{"status":"unavailable","reason":"shutting down"}`)
		return
	}
	// A little past the probe's own timeout, so that its answer comes first.
	ctx, cancel := context.WithTimeout(r.Context(), readiness.DefaultTimeout+500*time.Millisecond)
	defer cancel()
	err := s.readiness.Check(ctx)
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, `{"status":"ok"}`)
	case errors.Is(err, context.DeadlineExceeded):
		writeJSON(w, http.StatusServiceUnavailable, `{"status":"unavailable","reason":"database did not answer in time"}`)
	case errors.Is(err, errNoWrites):
		writeJSON(w, http.StatusServiceUnavailable, `{"status":"unavailable","reason":"database refuses writes"}`)
	default:
		writeJSON(w, http.StatusServiceUnavailable, `{"status":"unavailable","reason":"database unreachable"}`)
	}
}

// Kinds of unreadiness, for the reason /readyz gives; the cause is logged.
var (
	errUnreachable = errors.New("database unreachable")
	errNoWrites    = errors.New("database refuses writes")
)

// probeDatabase is readiness for `platen serve`: every pool answers, and a
// write commits. Reads alone passed while every write failed (a disk
// error, a file or session gone read-only).
func (s *Server) probeDatabase(ctx context.Context) error {
	if err := s.db.Ping(ctx); err != nil {
		return fmt.Errorf("%w: %w", errUnreachable, err)
	}
	if err := s.db.CheckWrites(ctx, s.process); err != nil {
		return fmt.Errorf("%w: %w", errNoWrites, err)
	}
	return nil
}

func writeJSON(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(body))
}
