package apierr

import (
	"context"
	"errors"
	"log/slog"

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
