package gateway

import (
	"context"
	"net/http"
	"strconv"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/platen-print/platen/internal/apierr"
)

// retryAfterSeconds is what a 429 tells the client to wait.
const retryAfterSeconds = 1

// writeError answers err as the contract's error body:
// {"code": <gRPC code>, "message": "...", "details": [...]}.
func writeError(ctx context.Context, _ *runtime.ServeMux, m runtime.Marshaler, w http.ResponseWriter, r *http.Request, err error) {
	noteRoute(ctx)
	st := status.Convert(err)
	if body, ok := r.Body.(*requestBody); ok && body.violation != nil && st.Code() == codes.InvalidArgument {
		st = apierr.ToStatus(ctx, &apierr.ValidationError{Violations: []apierr.Violation{*body.violation}})
	}
	writeStatus(w, m, st)
}

func writeStatus(w http.ResponseWriter, m runtime.Marshaler, st *status.Status) {
	code := runtime.HTTPStatusFromCode(st.Code())
	switch st.Code() {
	case codes.Unauthenticated:
		w.Header().Set("WWW-Authenticate", `Bearer realm="platen"`)
	case codes.ResourceExhausted:
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds))
	}
	body, err := m.Marshal(st.Proto())
	if err != nil {
		code = http.StatusInternalServerError
		body = []byte(`{"code":13,"message":"internal error","details":[]}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// writeRoutingError answers unknown paths with 404 and known paths with the
// wrong method with 405, both as JSON errors.
func writeRoutingError(_ context.Context, _ *runtime.ServeMux, m runtime.Marshaler, w http.ResponseWriter, _ *http.Request, httpStatus int) {
	switch httpStatus {
	case http.StatusMethodNotAllowed:
		writeStatusCode(w, m, http.StatusMethodNotAllowed, status.New(codes.Unimplemented, "Method Not Allowed"))
	case http.StatusNotFound:
		writeStatus(w, m, status.New(codes.NotFound, "Not Found"))
	default:
		writeStatusCode(w, m, httpStatus, status.New(codes.InvalidArgument, http.StatusText(httpStatus)))
	}
}

// writeStatusCode answers st with an HTTP status that differs from the one
// its gRPC code maps to (405 has no gRPC code of its own).
func writeStatusCode(w http.ResponseWriter, m runtime.Marshaler, httpStatus int, st *status.Status) {
	body, _ := m.Marshal(st.Proto())
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(httpStatus)
	_, _ = w.Write(body)
}
