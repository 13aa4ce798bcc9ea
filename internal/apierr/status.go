package apierr

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"syscall"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ToStatus translates an error returned by domain code into a gRPC status.
// Errors Platen does not recognise become Internal with a generic message;
// their text stays in the log.
func ToStatus(ctx context.Context, err error) *status.Status {
	if err == nil {
		return nil
	}
	if st, ok := status.FromError(err); ok {
		return st
	}
	var verr *ValidationError
	if errors.As(err, &verr) {
		return withViolations(status.New(codes.InvalidArgument, verr.Error()), verr.Violations)
	}
	var aerr *Error
	message := err.Error()
	field := ""
	if errors.As(err, &aerr) {
		message, field = aerr.Message, aerr.Field
	}
	code := codes.Internal
	switch {
	case errors.Is(err, ErrNotFound):
		code = codes.NotFound
	case errors.Is(err, ErrConflict):
		code = codes.AlreadyExists
	case errors.Is(err, ErrPermissionDenied):
		code = codes.PermissionDenied
	case errors.Is(err, ErrUnauthenticated):
		code = codes.Unauthenticated
	case errors.Is(err, ErrRateLimited):
		code = codes.ResourceExhausted
	case errors.Is(err, ErrPrecondition):
		code = codes.FailedPrecondition
	case Unreachable(err):
		// Before the context's errors: a database that did not answer
		// within its bound is an outage to retry, not the caller's deadline.
		slog.WarnContext(ctx, "database unreachable", "error", err)
		code, message = codes.Unavailable, "the database cannot be reached; try again shortly"
	case errors.Is(err, context.Canceled):
		code, message = codes.Canceled, "the request was cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		code, message = codes.DeadlineExceeded, "the request took too long"
	default:
		slog.ErrorContext(ctx, "internal error", "error", err)
		message = "internal error"
	}
	st := status.New(code, message)
	if field != "" {
		st = withViolations(st, []Violation{{Field: field, Description: message}})
	}
	return st
}

func withViolations(st *status.Status, vs []Violation) *status.Status {
	br := &errdetails.BadRequest{}
	for _, v := range vs {
		br.FieldViolations = append(br.FieldViolations, &errdetails.BadRequest_FieldViolation{
			Field: v.Field, Description: v.Description,
		})
	}
	if withDetails, err := st.WithDetails(br); err == nil {
		return withDetails
	}
	return st
}

// UnaryServerInterceptor applies ToStatus to every handler error, so that
// services return plain domain errors.
func UnaryServerInterceptor(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	if err != nil {
		return nil, ToStatus(ctx, err).Err()
	}
	return resp, nil
}

// ErrDatabaseTimeout marks a call to the database that got no answer
// within the bound the operator set (--db-timeout): the database is cut
// off or overwhelmed, which is an outage like a refused connection.
var ErrDatabaseTimeout = errors.New("the database did not answer in time")

// Unreachable reports whether err says the database cannot be reached
// right now: a connection refused, reset, closed or timed out, a session
// the server ended (shutting down, restarting), which pass by themselves
// and are the client's to retry, not faults of Platen's.
func Unreachable(err error) bool {
	var netErr net.Error
	var sqlState interface{ SQLState() string }
	var retry interface{ SafeToRetry() bool }
	switch {
	case errors.Is(err, ErrDatabaseTimeout):
		return true
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		// The caller's own deadline or cancellation, not the database's
		// (context.DeadlineExceeded is a net.Error too).
		return false
	case errors.Is(err, driver.ErrBadConn), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF),
		errors.Is(err, net.ErrClosed), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ETIMEDOUT):
		return true
	case errors.As(err, &retry) && retry.SafeToRetry():
		// pgx's word for a connection that failed before the statement
		// reached the server: "conn closed", a write that did not go out.
		return true
	case errors.As(err, &netErr):
		return true
	case errors.As(err, &sqlState):
		// Class 08 is a connection exception; 57P01-57P03 a server
		// shutting down, crashed or starting.
		code := sqlState.SQLState()
		return strings.HasPrefix(code, "08") || code == "57P01" || code == "57P02" || code == "57P03"
	}
	return false
}
