// Package httpstatus lets a gRPC handler choose the HTTP status the gateway
// answers with (Family B's 201): the handler sets it as response metadata,
// and the gateway's forward-response option turns it into the status line.
package httpstatus

import (
	"context"
	"strconv"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// Header is the response metadata key that carries the status.
const Header = "x-http-code"

type recorderKey struct{}

// Recorder remembers the status a handler chose, for the idempotency replay.
type Recorder struct{ Code int }

// WithRecorder returns ctx in which Set also records the status in r.
func WithRecorder(ctx context.Context, r *Recorder) context.Context {
	return context.WithValue(ctx, recorderKey{}, r)
}

// Set makes the gateway answer this call with code instead of 200.
func Set(ctx context.Context, code int) error {
	if r, ok := ctx.Value(recorderKey{}).(*Recorder); ok {
		r.Code = code
	}
	return grpc.SetHeader(ctx, metadata.Pairs(Header, strconv.Itoa(code)))
}
