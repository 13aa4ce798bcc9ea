package files

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
	"google.golang.org/grpc/codes"
)

// Handler serves GET and HEAD on the download URLs SignedURL makes for the
// local store; mount it at PathPrefix, e.g. mux.Handle(files.PathPrefix,
// store.Handler()). A tampered or expired URL gets 403 and a missing file 404,
// both with the API's JSON error body. An S3 store's URLs point at S3,
// so there its Handler answers 404 to everything.
func (s *Store) Handler() http.Handler {
	return http.HandlerFunc(s.serveHTTP)
}

func (s *Store) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		WriteError(w, http.StatusMethodNotAllowed, codes.Unimplemented, "Method Not Allowed")
		return
	}
	if s.local == nil {
		WriteError(w, http.StatusNotFound, codes.NotFound, "Not Found")
		return
	}
	key, filename, sha256Hex, err := s.local.check(r.Context(), r, s.now())
	switch {
	case errors.Is(err, errNotHere):
		WriteError(w, http.StatusNotFound, codes.NotFound, "Not Found")
	case err != nil:
		WriteError(w, http.StatusForbidden, codes.PermissionDenied, err.Error())
	default:
		s.serveFile(w, r, key, filename, sha256Hex)
	}
}

// serveFile answers with the file's bytes; http.ServeContent does Range,
// If-None-Match, If-Modified-Since and HEAD, reading through blob.Reader,
// which seeks by reopening the blob at the wanted offset. With the file's
// SHA-256 (from the signed URL) it adds the RFC 9530 digest fields, as
// digestWriter explains.
func (s *Store) serveFile(w http.ResponseWriter, r *http.Request, key, filename, sha256Hex string) {
	ctx := r.Context()
	attrs, err := s.bucket.Attributes(ctx, key)
	var rd *blob.Reader
	if err == nil {
		rd, err = s.bucket.NewReader(ctx, key, nil)
	}
	if gcerrors.Code(err) == gcerrors.NotFound {
		WriteError(w, http.StatusNotFound, codes.NotFound, "the file of this link is no longer stored")
		return
	}
	if err != nil {
		slog.ErrorContext(ctx, "files: cannot read a stored file", "key", key, "error", err)
		WriteError(w, http.StatusInternalServerError, codes.Internal, "internal error")
		return
	}
	defer func() { _ = rd.Close() }()

	h := w.Header()
	if attrs.ContentType != "" {
		h.Set("Content-Type", attrs.ContentType)
	}
	h.Set("Content-Disposition", contentDisposition(filename))
	if etag := strongETag(attrs); etag != "" {
		h.Set("ETag", etag)
	}
	// Print files are a client's own data: no shared cache keeps them.
	h.Set("Cache-Control", "private")
	h.Set("X-Content-Type-Options", "nosniff")
	if sha256Hex != "" {
		w = &digestWriter{ResponseWriter: w, field: DigestField(sha256Hex), head: r.Method == http.MethodHead}
	}
	http.ServeContent(w, r, "", attrs.ModTime, rd)
}

// strongETag is the blob's MD5 in quotes, or else its own ETag when that is
// strong; "" when it has neither.
func strongETag(a *blob.Attributes) string {
	switch {
	case len(a.MD5) > 0:
		return `"` + hex.EncodeToString(a.MD5) + `"`
	case a.ETag == "" || strings.HasPrefix(a.ETag, "W/"):
		return ""
	case strings.HasPrefix(a.ETag, `"`):
		return a.ETag
	default:
		return `"` + a.ETag + `"`
	}
}

// errorBody is the API's error shape: {"code", "message", "details"}.
type errorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Details []any  `json:"details"`
}

// WriteError answers the API's JSON error with the HTTP status and
// the gRPC code the REST API would give.
func WriteError(w http.ResponseWriter, status int, code codes.Code, message string) {
	body, _ := json.Marshal(errorBody{Code: int(code), Message: message, Details: []any{}})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
