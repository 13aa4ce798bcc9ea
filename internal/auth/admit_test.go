package auth

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"
)

// An early check admits the caller once; the interceptor then takes the
// caller from the context and reads no token again.
func TestAdmittedCallerIsNotCheckedAgain(t *testing.T) {
	lookup := newFakeLookup()
	lookup.add(goodToken, goodPrincipal)
	a, _ := newTestAuthenticator(lookup)
	ctx, err := a.Admit(context.Background(), []string{"Bearer " + goodToken})
	if err != nil {
		t.Fatal(err)
	}
	// The metadata names another token: the admitted caller wins, as both
	// came from the same request's header.
	ctx = metadata.NewIncomingContext(ctx, metadata.Pairs("authorization", "Bearer "+unknownToken))
	var got Principal
	_, err = a.UnaryServerInterceptor(ctx, nil, &grpc.UnaryServerInfo{FullMethod: "/platen.v1.OrderService/GetOrder"},
		func(ctx context.Context, _ any) (any, error) {
			got, err = FromContext(ctx)
			return nil, err
		})
	if err != nil || got != goodPrincipal {
		t.Fatalf("handler saw %+v, %v; want %+v", got, err, goodPrincipal)
	}
	if n := lookup.count(); n != 1 {
		t.Errorf("%d lookups, want 1", n)
	}
}

func TestAdmitRefuses(t *testing.T) {
	lookup := newFakeLookup()
	lookup.add(goodToken, goodPrincipal)
	a, _ := newTestAuthenticator(lookup)
	for _, tc := range []struct {
		name    string
		values  []string
		message string
	}{
		{"no header", nil, "missing bearer token: send Authorization: Bearer <token>"},
		{"another scheme", []string{"Basic abc"}, "malformed Authorization header: expected Bearer <token>"},
		{"an unknown token", []string{"Bearer " + unknownToken}, "unknown or revoked token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := a.Admit(context.Background(), tc.values)
			if st := status.Convert(err); st.Code() != codes.Unauthenticated || st.Message() != tc.message {
				t.Errorf("Admit: %v, want Unauthenticated %q", err, tc.message)
			}
		})
	}
}

func TestTapHandle(t *testing.T) {
	lookup := newFakeLookup()
	lookup.add(goodToken, goodPrincipal)
	a, _ := newTestAuthenticator(lookup)
	if _, err := a.TapHandle(context.Background(), &tap.Info{FullMethodName: "/grpc.health.v1.Health/Check"}); err != nil {
		t.Errorf("health check without a token: %v", err)
	}
	_, err := a.TapHandle(context.Background(), &tap.Info{FullMethodName: "/platen.v1.OrderService/GetOrder"})
	if status.Code(err) != codes.Unauthenticated {
		t.Errorf("no token: %v, want Unauthenticated", err)
	}
	ctx, err := a.TapHandle(context.Background(), &tap.Info{
		FullMethodName: "/platen.v1.OrderService/GetOrder",
		Header:         metadata.Pairs("authorization", "Bearer "+goodToken),
	})
	if p, ok := ctx.Value(admittedKey{}).(Principal); err != nil || !ok || p != goodPrincipal {
		t.Errorf("good token: %+v, %v", p, err)
	}
}

// A caller waits for a token's database read no longer than its context
// lives (the tap: tapWait); the read goes on and its answer is cached.
func TestAuthenticateWaitsAtMostItsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lookup := newFakeLookup()
		lookup.add(goodToken, goodPrincipal)
		release := make(chan struct{})
		lookup.release = release
		a, _ := newTestAuthenticator(lookup)

		_, err := a.TapHandle(context.Background(), &tap.Info{
			FullMethodName: "/platen.v1.OrderService/GetOrder",
			Header:         metadata.Pairs("authorization", "Bearer "+goodToken),
		})
		if status.Code(err) != codes.DeadlineExceeded {
			t.Fatalf("a read that hangs: %v, want DeadlineExceeded after %v", err, tapWait)
		}
		close(release)
		synctest.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if p, err := a.Authenticate(ctx, goodToken); err != nil || p != goodPrincipal {
			t.Fatalf("after the read ended: %+v, %v", p, err)
		}
		if n := lookup.count(); n != 1 {
			t.Errorf("%d lookups, want the one that hung, cached", n)
		}
	})
}

// The rate limit is taken once a request: at admission, before the body,
// and not again in the interceptor.
func TestAdmitTakesTheRateLimitOnce(t *testing.T) {
	lookup := newFakeLookup()
	lookup.add(goodToken, goodPrincipal)
	a, _ := newTestAuthenticator(lookup)
	a.WithRateLimit(NewRateLimiter(0.001, 1))
	ctx, err := a.Admit(context.Background(), []string{"Bearer " + goodToken})
	if err != nil {
		t.Fatal(err)
	}
	info := &grpc.UnaryServerInfo{FullMethod: "/platen.v1.OrderService/GetOrder"}
	if _, err := a.UnaryServerInterceptor(ctx, nil, info, func(context.Context, any) (any, error) { return nil, nil }); err != nil {
		t.Fatalf("the admitted request: %v", err)
	}
	if _, err := a.Admit(context.Background(), []string{"Bearer " + goodToken}); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("the next request: %v, want ResourceExhausted", err)
	}
}
