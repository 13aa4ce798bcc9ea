package gateway

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/platen-print/platen/internal/apierr"
)

// retryAfterSeconds is what a 429 or a 503 tells the client to wait.
const retryAfterSeconds = 1

// writeError answers err as the API's error body:
// {"code": <gRPC code>, "message": "...", "details": [...]}.
func writeError(ctx context.Context, _ *runtime.ServeMux, m runtime.Marshaler, w http.ResponseWriter, r *http.Request, err error) {
	noteRoute(ctx)
	st := status.Convert(err)
	if st.Code() == codes.InvalidArgument && len(st.Details()) == 0 {
		if v, ok := readViolation(r, st.Message()); ok {
			st = apierr.ToStatus(ctx, &apierr.ValidationError{Violations: []apierr.Violation{v}})
		}
	}
	writeStatus(w, m, st)
}

// Parameters grpc-gateway could not read into the request message, as it
// words them: a path parameter, and a query parameter.
var (
	pathMismatch  = regexp.MustCompile(`^type mismatch, parameter: ([a-z0-9_.]+), error: (.*)$`)
	queryMismatch = regexp.MustCompile(`^parsing field "([a-z0-9_.]+)": (.*)$`)
)

// readViolation is the field violation of a request the gateway could not
// read: the body's, left by the decoder, or a path or query parameter's,
// from grpc-gateway's message. The API wants every validation error to
// name its field, and the gateway's own errors carry no details.
func readViolation(r *http.Request, message string) (apierr.Violation, bool) {
	if body, ok := r.Body.(*requestBody); ok && body.violation != nil {
		return *body.violation, true
	}
	for _, re := range []*regexp.Regexp{pathMismatch, queryMismatch} {
		if m := re.FindStringSubmatch(message); m != nil {
			return apierr.Violation{Field: m[1], Description: parseProblem(m[2])}, true
		}
	}
	return apierr.Violation{}, false
}

// parseProblem says in the API's words what strconv's error means.
func parseProblem(cause string) string {
	switch {
	case strings.Contains(cause, strconv.ErrRange.Error()):
		return "is out of range"
	case strings.Contains(cause, "strconv.ParseInt"), strings.Contains(cause, "strconv.ParseUint"):
		return "must be an integer"
	case strings.Contains(cause, "strconv.ParseFloat"):
		return "must be a number"
	case strings.Contains(cause, "strconv.ParseBool"):
		return "must be true or false"
	}
	return "cannot be read: " + cause
}

func writeStatus(w http.ResponseWriter, m runtime.Marshaler, st *status.Status) {
	code := runtime.HTTPStatusFromCode(st.Code())
	switch st.Code() {
	case codes.Unauthenticated:
		w.Header().Set("WWW-Authenticate", `Bearer realm="platen"`)
	case codes.ResourceExhausted, codes.Unavailable:
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
func writeRoutingError(ctx context.Context, mux *runtime.ServeMux, m runtime.Marshaler, w http.ResponseWriter, r *http.Request, httpStatus int) {
	if isProbe(ctx) {
		w.WriteHeader(httpStatus)
		return
	}
	switch httpStatus {
	case http.StatusMethodNotAllowed:
		w.Header().Set("Allow", allowed(mux, r))
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

// codeForHTTP is the gRPC code an HTTP status stands for, for the answers
// that begin as an HTTP status rather than a gRPC error (net/http's own
// refusals, a file's unsatisfiable Range): the inverse of the gateway's
// mapping where there is one.
func codeForHTTP(httpStatus int) codes.Code {
	switch httpStatus {
	case http.StatusUnauthorized:
		return codes.Unauthenticated
	case http.StatusForbidden:
		return codes.PermissionDenied
	case http.StatusNotFound:
		return codes.NotFound
	case http.StatusMethodNotAllowed, http.StatusNotImplemented, http.StatusHTTPVersionNotSupported:
		return codes.Unimplemented
	case http.StatusConflict:
		return codes.AlreadyExists
	case http.StatusPreconditionFailed:
		return codes.FailedPrecondition
	case http.StatusRequestedRangeNotSatisfiable:
		return codes.OutOfRange
	case http.StatusTooManyRequests:
		return codes.ResourceExhausted
	case http.StatusServiceUnavailable:
		return codes.Unavailable
	case http.StatusGatewayTimeout:
		return codes.DeadlineExceeded
	}
	if httpStatus >= 500 {
		return codes.Internal
	}
	return codes.InvalidArgument
}
