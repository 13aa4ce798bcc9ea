package rendersvc

import (
	"context"
	"errors"
	"log/slog"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/platen-print/platen/internal/fetch"
	"github.com/platen-print/platen/internal/render"
)

func invalid(msg string) error { return status.Error(codes.InvalidArgument, msg) }

// toStatus maps a render's failure to the code that tells the caller
// whether to retry. A layer that failed for a reason a retry may get past
// (an image server timing out or answering 5xx) is UNAVAILABLE; any other
// layer failure is the document's, INVALID_ARGUMENT. Both keep the
// renderer's message, which names the layer and says why.
func toStatus(ctx context.Context, err error) *status.Status {
	if st, ok := status.FromError(err); ok {
		return st
	}
	// The caller giving up comes first: a layer interrupted by it has a
	// temporary cause too, but the call's fate is the caller's.
	if ctx.Err() != nil {
		return status.FromContextError(ctx.Err())
	}
	var le *render.LayerError
	switch {
	case errors.As(err, &le) && fetch.Temporary(le.Err):
		return status.New(codes.Unavailable, err.Error())
	case errors.As(err, &le), errors.Is(err, render.ErrTooLarge):
		return status.New(codes.InvalidArgument, err.Error())
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return status.FromContextError(err)
	}
	return status.New(codes.Internal, err.Error())
}

// levelOf is how loudly a failure with code is logged: a bad document is
// the shop's business; a fault of ours or of the network is the operator's.
func levelOf(code codes.Code) slog.Level {
	switch code {
	case codes.InvalidArgument, codes.Canceled:
		return slog.LevelInfo
	case codes.Internal:
		return slog.LevelError
	}
	return slog.LevelWarn
}

// Permanent reports whether err is a render that can never succeed: a gRPC
// status INVALID_ARGUMENT, so the job fails now rather than retrying.
// Errors wrapping such a status count too.
func Permanent(err error) bool {
	st, ok := grpcStatus(err)
	return ok && st.Code() == codes.InvalidArgument
}

// Reason is err in words a shop can read: a status's message (without
// gRPC's "rpc error: code = …" framing), else err's text.
func Reason(err error) string {
	if err == nil {
		return ""
	}
	if st, ok := grpcStatus(err); ok {
		return st.Message()
	}
	return err.Error()
}

// grpcStatus finds the status err is or wraps. Unlike status.FromError it
// keeps the status's own message, not the wrapping error's text.
func grpcStatus(err error) (*status.Status, bool) {
	var gs interface{ GRPCStatus() *status.Status }
	if err == nil || !errors.As(err, &gs) || gs.GRPCStatus() == nil {
		return nil, false
	}
	return gs.GRPCStatus(), true
}
