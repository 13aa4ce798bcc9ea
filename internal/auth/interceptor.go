package auth

import (
	"context"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/platen-print/platen/internal/apierr"
)

// publicServices answer without a token: health checks and reflection.
var publicServices = []string{"/grpc.health.v1.", "/grpc.reflection."}

// UnaryServerInterceptor authenticates every call from its authorization
// metadata (the gateway forwards the HTTP Authorization header there), or
// takes the caller an early check admitted (see Admit); either way within
// the rate limit.
func (a *Authenticator) UnaryServerInterceptor(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if isPublic(info.FullMethod) {
		return handler(ctx, req)
	}
	p, err := a.caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := mayCall(ctx, p, info.FullMethod); err != nil {
		return nil, err
	}
	return handler(WithPrincipal(ctx, p), req)
}

// operatorAPI is the service operator tokens call, and only they.
const operatorAPI = "/platen.v1.OperatorService/"

// mayCall keeps each kind of token to its API: operators to the operator
// service, clients to the others. A valid token of the wrong kind is 403.
func mayCall(ctx context.Context, p Principal, method string) error {
	switch operator := strings.HasPrefix(method, operatorAPI); {
	case operator && !p.IsOperator():
		return apierr.ToStatus(ctx, apierr.PermissionDenied("", "this API is for operator tokens (plo_…); a client API token cannot use it")).Err()
	case !operator && p.IsOperator():
		return apierr.ToStatus(ctx, apierr.PermissionDenied("", "an operator token (plo_…) is for the operator API only; use a client API token here")).Err()
	}
	return nil
}

// StreamServerInterceptor lets public streams (reflection, health watch)
// through and authenticates the rest.
func (a *Authenticator) StreamServerInterceptor(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if isPublic(info.FullMethod) {
		return handler(srv, ss)
	}
	p, err := a.caller(ss.Context())
	if err != nil {
		return err
	}
	if err := mayCall(ss.Context(), p, info.FullMethod); err != nil {
		return err
	}
	return handler(srv, ss)
}

// caller is the principal an early check admitted into ctx, or else the
// one ctx's authorization metadata names, within the rate limit.
func (a *Authenticator) caller(ctx context.Context) (Principal, error) {
	if p, ok := ctx.Value(admittedKey{}).(Principal); ok {
		return p, nil
	}
	return a.admit(ctx, metadata.ValueFromIncomingContext(ctx, "authorization"))
}

// fromValues is the one reading of a request's Authorization values, for
// the interceptors and the early checks alike: the first value must be a
// bearer token of a live token. Its errors are gRPC statuses.
func (a *Authenticator) fromValues(ctx context.Context, values []string) (Principal, error) {
	if len(values) == 0 {
		return Principal{}, apierr.ToStatus(ctx, apierr.Unauthenticated("missing bearer token: send Authorization: Bearer <token>")).Err()
	}
	token, ok := BearerToken(values[0])
	if !ok {
		return Principal{}, apierr.ToStatus(ctx, apierr.Unauthenticated("malformed Authorization header: expected Bearer <token>")).Err()
	}
	p, err := a.Authenticate(ctx, token)
	if err != nil {
		return Principal{}, apierr.ToStatus(ctx, err).Err()
	}
	return p, nil
}

func isPublic(method string) bool {
	for _, prefix := range publicServices {
		if strings.HasPrefix(method, prefix) {
			return true
		}
	}
	return false
}
