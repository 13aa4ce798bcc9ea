package auth

import (
	"context"
	"time"

	"google.golang.org/grpc/tap"

	"github.com/platen-print/platen/internal/apierr"
)

// tapWait bounds how long a gRPC connection waits for a token's database
// read: the tap runs on the connection's reading goroutine, so every call
// on that connection waits with it.
const tapWait = 5 * time.Second

type admittedKey struct{}

// Admit checks a request's Authorization values from its headers alone,
// before its body or message is read, and returns ctx carrying the caller.
// A request without a valid token then costs the server no decoding: an
// 8 MiB body of empty objects took a gigabyte to decode before it was
// refused. The check is the interceptor's own, through the same cache;
// the interceptor takes the admitted caller from ctx instead of checking
// again. The rate limit is applied here too, in place of the interceptor.
func (a *Authenticator) Admit(ctx context.Context, authorization []string) (context.Context, error) {
	p, err := a.admit(ctx, authorization)
	if err != nil {
		return ctx, err
	}
	return context.WithValue(ctx, admittedKey{}, p), nil
}

// admit is the caller of these Authorization values, within the rate
// limit, which is thus also checked before the body is read, once.
func (a *Authenticator) admit(ctx context.Context, authorization []string) (Principal, error) {
	p, err := a.fromValues(ctx, authorization)
	if err != nil {
		return Principal{}, err
	}
	if err := a.limits.Allow(p); err != nil {
		return Principal{}, apierr.ToStatus(ctx, err).Err()
	}
	return p, nil
}

// TapHandle is Admit for the gRPC server (grpc.InTapHandle): it runs when a
// call's headers arrive, before its message is read, and refuses the call
// there. Health checks and reflection pass without a token.
func (a *Authenticator) TapHandle(ctx context.Context, info *tap.Info) (context.Context, error) {
	if isPublic(info.FullMethodName) {
		return ctx, nil
	}
	wait, cancel := context.WithTimeout(ctx, tapWait)
	defer cancel()
	p, err := a.admit(wait, info.Header.Get("authorization"))
	if err != nil {
		return ctx, err
	}
	return context.WithValue(ctx, admittedKey{}, p), nil
}
