package renderproc

import (
	"context"
	"errors"
	"log/slog"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
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
	var limit *render.LimitError
	switch {
	case errors.As(err, &limit):
		// The print's own limits: it will never pass them.
		return status.New(codes.InvalidArgument, err.Error())
	case errors.As(err, &le) && fetch.Temporary(le.Err):
		return status.New(codes.Unavailable, err.Error())
	case errors.As(err, &le), errors.Is(err, render.ErrTooLarge), errors.Is(err, render.ErrTooSmall):
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

// Permanent reports whether err is a render that can never succeed, so
// the job fails now rather than retrying: a gRPC status INVALID_ARGUMENT
// (the document), RESOURCE_EXHAUSTED (the render hit a limit of time, CPU,
// memory or pixels) or a crash (CrashedError). Errors wrapping such a
// status count too.
func Permanent(err error) bool {
	st, ok := grpcStatus(err)
	if !ok {
		return false
	}
	switch st.Code() {
	case codes.InvalidArgument, codes.ResourceExhausted:
		return true
	}
	return Crashed(err)
}

// crashReason marks a render that crashed its renderer: retried, it would
// crash it again.
const crashReason = "RENDER_CRASHED"

// CrashedError is a render that crashed the renderer (a panic, a process
// that died): INTERNAL, marked by an ErrorInfo so that it stays distinct
// from the service's own faults across gRPC.
func CrashedError(msg string) error {
	st, err := status.New(codes.Internal, msg).WithDetails(&errdetails.ErrorInfo{Reason: crashReason, Domain: "render.platen"})
	if err != nil {
		return status.Error(codes.Internal, msg)
	}
	return st.Err()
}

// Crashed reports whether err is (or wraps) a CrashedError.
func Crashed(err error) bool {
	st, ok := grpcStatus(err)
	if !ok || st.Code() != codes.Internal {
		return false
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.Reason == crashReason {
			return true
		}
	}
	return false
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
