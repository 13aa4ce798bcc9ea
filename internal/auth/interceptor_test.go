package auth

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/platen-print/platen/internal/apierr"
)

const operatorToken = "plo_operator"

var operatorPrincipal = Principal{TokenID: 9, TeamID: 3, OperatorID: 4}

func withToken(token string) context.Context {
	if token == "" {
		return context.Background()
	}
	return metadata.NewIncomingContext(context.Background(), metadata.Pairs("authorization", "Bearer "+token))
}

// A call no early check admitted (a gRPC server without the tap) is
// authenticated by the interceptor from its metadata, with the same
// refusals, the token kinds kept to their APIs and the rate limit.
func TestInterceptorAuthenticatesUnadmittedCalls(t *testing.T) {
	lookup := newFakeLookup()
	lookup.add(goodToken, goodPrincipal)
	lookup.add(operatorToken, operatorPrincipal)
	a, _ := newTestAuthenticator(lookup)
	a.WithRateLimit(NewRateLimiter(0.001, 2))
	const clientMethod = "/platen.v1.OrderService/GetOrder"
	const operatorMethod = "/platen.v1.OperatorService/ListPrints"

	for _, tc := range []struct {
		name, token, method string
		code                codes.Code
		want                Principal
	}{
		{"no token", "", clientMethod, codes.Unauthenticated, Principal{}},
		{"an unknown token", unknownToken, clientMethod, codes.Unauthenticated, Principal{}},
		{"a client's token", goodToken, clientMethod, codes.OK, goodPrincipal},
		{"a client's token on the operator API", goodToken, operatorMethod, codes.PermissionDenied, Principal{}},
		{"an operator's token on a client API", operatorToken, clientMethod, codes.PermissionDenied, Principal{}},
		{"an operator's token", operatorToken, operatorMethod, codes.OK, operatorPrincipal},
		// The client token's bucket of 2 was taken by the two calls above.
		{"a client's token past its rate", goodToken, clientMethod, codes.ResourceExhausted, Principal{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ran := false
			var got Principal
			_, err := a.UnaryServerInterceptor(withToken(tc.token), nil, &grpc.UnaryServerInfo{FullMethod: tc.method},
				func(ctx context.Context, _ any) (any, error) {
					ran = true
					var err error
					got, err = FromContext(ctx)
					return nil, err
				})
			if status.Code(err) != tc.code {
				t.Fatalf("%v, want %v", err, tc.code)
			}
			if ran != (tc.code == codes.OK) || got != tc.want {
				t.Errorf("handler ran %v with %+v; want it run (%v) with %+v", ran, got, tc.code == codes.OK, tc.want)
			}
		})
	}
}

// stream is a server stream of a context.
type stream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s stream) Context() context.Context { return s.ctx }

// Streams are authenticated as unary calls are: public ones (reflection,
// health) pass without a token, the others need one of their API's kind.
func TestStreamInterceptor(t *testing.T) {
	lookup := newFakeLookup()
	lookup.add(goodToken, goodPrincipal)
	lookup.add(operatorToken, operatorPrincipal)
	a, _ := newTestAuthenticator(lookup)
	for _, tc := range []struct {
		name, token, method string
		code                codes.Code
	}{
		{"reflection without a token", "", "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", codes.OK},
		{"a health watch without a token", "", "/grpc.health.v1.Health/Watch", codes.OK},
		{"a stream without a token", "", "/platen.v1.OrderService/Watch", codes.Unauthenticated},
		{"a malformed header", "", "/platen.v1.OrderService/Watch", codes.Unauthenticated},
		{"a client's token on the operator API", goodToken, "/platen.v1.OperatorService/Watch", codes.PermissionDenied},
		{"a client's token", goodToken, "/platen.v1.OrderService/Watch", codes.OK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := withToken(tc.token)
			if tc.name == "a malformed header" {
				ctx = metadata.NewIncomingContext(ctx, metadata.Pairs("authorization", goodToken))
			}
			ran := false
			err := a.StreamServerInterceptor(nil, stream{ctx: ctx}, &grpc.StreamServerInfo{FullMethod: tc.method},
				func(any, grpc.ServerStream) error { ran = true; return nil })
			if status.Code(err) != tc.code || ran != (tc.code == codes.OK) {
				t.Errorf("%v, handler ran %v; want %v", err, ran, tc.code)
			}
		})
	}
}

// Without --rate-burst the burst is twice the rate (at least 1); each
// token has its bucket, refilled at the rate; a 429 says the limits.
func TestRateLimiter(t *testing.T) {
	if NewRateLimiter(0, 10) != nil {
		t.Error("a rate of 0 is a limiter; want none")
	}
	var none *RateLimiter
	if err := none.Allow(goodPrincipal); err != nil {
		t.Errorf("no limiter refused: %v", err)
	}
	synctest.Test(t, func(t *testing.T) {
		l := NewRateLimiter(2, 0)
		for n := range 4 {
			if err := l.Allow(goodPrincipal); err != nil {
				t.Fatalf("request %d of the burst of 4: %v", n+1, err)
			}
		}
		err := l.Allow(goodPrincipal)
		var aerr *apierr.Error
		if !errors.As(err, &aerr) || !errors.Is(err, apierr.ErrRateLimited) || aerr.Message != "too many requests for this token: at most 2 a second, bursts of 4" {
			t.Fatalf("past the burst: %v", err)
		}
		if err := l.Allow(Principal{TokenID: goodPrincipal.TokenID + 1}); err != nil {
			t.Errorf("another token: %v", err)
		}
		time.Sleep(500 * time.Millisecond) // the fake clock: one request's worth at 2 a second
		if err := l.Allow(goodPrincipal); err != nil {
			t.Errorf("half a second later: %v", err)
		}
		if err := l.Allow(goodPrincipal); err == nil {
			t.Error("a second request half a second later was allowed")
		}

		slow := NewRateLimiter(0.1, 0)
		if slow.Allow(goodPrincipal) != nil || slow.Allow(goodPrincipal) == nil {
			t.Error("at 0.1 a second the burst is not 1")
		}
	})
}

// A handler reached without a caller, or a client's token in the
// operator API's code, is refused, not served as nobody.
func TestPrincipalFromContextRefuses(t *testing.T) {
	if _, err := FromContext(context.Background()); !errors.Is(err, apierr.ErrUnauthenticated) {
		t.Errorf("no caller: %v, want Unauthenticated", err)
	}
	if _, err := OperatorFromContext(WithPrincipal(context.Background(), goodPrincipal)); !errors.Is(err, apierr.ErrPermissionDenied) {
		t.Errorf("a client's token: %v, want PermissionDenied", err)
	}
	if p, err := OperatorFromContext(WithPrincipal(context.Background(), operatorPrincipal)); err != nil || p != operatorPrincipal {
		t.Errorf("an operator: %+v, %v", p, err)
	}
}
