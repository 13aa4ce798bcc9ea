package server_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/platen-print/platen/internal/platentest"
)

const (
	missingToken   = "missing bearer token: send Authorization: Bearer <token>"
	malformedToken = "malformed Authorization header: expected Bearer <token>"
	unknownToken   = "unknown or revoked token"
)

// emptyItems is an order body of n empty items: 3 bytes each as JSON, a
// few hundred bytes each once decoded.
func emptyItems(n int) []byte {
	return []byte(`{"items":[` + strings.TrimSuffix(strings.Repeat("{},", n), ",") + `]}`)
}

// eightMB is the audit's body: 8 MB of empty items, no token.
var eightMB = emptyItems(8_000_000 / 3)

// A request without a valid token is refused before its body is read,
// over REST and gRPC: it costs no decoding, whatever it carries.
func TestTokenCheckedBeforeBody(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")

		t.Run("REST", func(t *testing.T) {
			for _, tc := range []struct{ name, authorization, message string }{
				{"no Authorization", "", missingToken},
				{"not a bearer token", "Basic YWxhZGRpbjpvcGVuc2VzYW1l", malformedToken},
				{"an unknown token", "Bearer plt_nope", unknownToken},
			} {
				t.Run(tc.name, func(t *testing.T) {
					var header []string
					if tc.authorization != "" {
						header = []string{"Authorization", tc.authorization}
					}
					r := srv.Do(t, "POST", "/api/v1/orders", "", eightMB, header...)
					wantError(t, r, 401, codes.Unauthenticated, tc.message)
					if r.Header.Get("WWW-Authenticate") == "" {
						t.Error("401 without WWW-Authenticate")
					}
				})
			}
		})
		t.Run("gRPC", func(t *testing.T) {
			conn := srv.GRPC(t)
			ctx := context.Background()
			eight := bytes.Repeat([]byte{0x12, 0x00}, 4_000_000) // 4 million empty items
			wantStatus(t, invokeRaw(ctx, conn, "/platen.v1.OrderService/CreateOrder", eight), codes.Unauthenticated, missingToken)
			wantStatus(t, invokeRaw(platentest.Bearer(ctx, "plt_nope"), conn, "/platen.v1.OrderService/CreateOrder", eight),
				codes.Unauthenticated, unknownToken)
			// Without a token even a message far over the size limit is refused
			// for its token, as nothing of it is read.
			wantStatus(t, invokeRaw(ctx, conn, "/platen.v1.ShopService/CreateShopOrder", make([]byte, 32<<20)),
				codes.Unauthenticated, missingToken)
			// With one, the size limit is 8 MiB and a little.
			err := invokeRaw(platentest.Bearer(ctx, acme.Token), conn, "/platen.v1.OrderService/CreateOrder", make([]byte, 8<<20+65<<10))
			if status.Code(err) != codes.ResourceExhausted {
				t.Errorf("a 8 MiB + 65 KiB message: %v, want ResourceExhausted", err)
			}
		})
	})
}

// What needs no token still answers without one, and an unknown path or
// method is still a 404 or 405, not a 401.
func TestTokenFreeRoutes(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
			if r := srv.Do(t, "GET", path, "", nil); r.Status != 200 {
				t.Errorf("GET %s without a token: %d %s", path, r.Status, r.Raw)
			}
		}
		// Download links carry their own signed token: a bad one is a 403.
		for _, path := range []string{
			"/api/v1/print-files/1f0e2c4e-0000-4000-8000-000000000000?token=x",
			"/v1/shop/files/p-1/1?token=x",
			"/files/orders/o/i.pdf?token=x",
		} {
			r := srv.Do(t, "GET", path, "", nil)
			platentest.ErrorBody(t, r, 403)
		}
		wantError(t, srv.Do(t, "GET", "/api/v1/nothing-here", "", nil), 404, codes.NotFound, "Not Found")
		wantError(t, srv.Do(t, "PATCH", "/api/v1/orders/abc", "", "{}"), 405, codes.Unimplemented, "Method Not Allowed")

		// grpc-gateway would read a form POST's body (ParseForm) to serve it as
		// a GET, before the route's token check; a POST is a POST here.
		form := srv.Do(t, "POST", "/api/v1/order-items/x/print", "", "a=1", "Content-Type", "application/x-www-form-urlencoded")
		wantError(t, form, 405, codes.Unimplemented, "Method Not Allowed")
		override := srv.Do(t, "POST", "/api/v1/order-items/x/print", "", "{}", "X-HTTP-Method-Override", "GET")
		wantError(t, override, 405, codes.Unimplemented, "Method Not Allowed")

		resp, err := healthpb.NewHealthClient(srv.GRPC(t)).Check(context.Background(), &healthpb.HealthCheckRequest{})
		if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("gRPC health without a token: %v %v", resp, err)
		}
		for _, name := range []string{"platen.v1.OrderService", "platen.v1.ShopService", "platen.v1.OperatorService", "grpc.health.v1.Health"} {
			resp, err := healthpb.NewHealthClient(srv.GRPC(t)).Check(context.Background(), &healthpb.HealthCheckRequest{Service: name})
			if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
				t.Errorf("gRPC health of %s: %v %v", name, resp, err)
			}
		}
		if _, err := healthpb.NewHealthClient(srv.GRPC(t)).Check(context.Background(), &healthpb.HealthCheckRequest{Service: "platen.v1.NoSuchService"}); status.Code(err) != codes.NotFound {
			t.Errorf("gRPC health of a service that is not: %v", err)
		}
	})
}

// With a token, a body is read through the input limits: 413 past 8 MiB,
// 400 naming the path past a depth, list or total limit, each found while
// reading, before any decoding. gRPC messages meet the same limits.
func TestBodyLimits(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		deep := `{"items":[{"properties":` + strings.Repeat(`{"a":`, 30) + `1` + strings.Repeat("}", 30) + `}]}`
		tooDeepPath := "items[0].properties" + strings.Repeat(".a", 29)
		manyValues := `{"items":[{"properties":{"p":[` + strings.Repeat(`[`+strings.TrimSuffix(strings.Repeat("0,", 10_000), ",")+`],`, 25) + `[0]]}}]}`
		tests := []struct {
			name    string
			body    []byte
			status  int
			message string
			fields  []string
		}{
			{"8 MB of empty items with a token", eightMB, 400, "items: holds more than 10,000 elements", []string{"items"}},
			{"10,000 items pass the limit; the order's own maximum is 1,000", emptyItems(10_000), 400,
				"store_id: is required; ecommerce_order_id: is required; items: must hold at most 1000 items",
				[]string{"store_id", "ecommerce_order_id", "items"}},
			{"a list inside an item", []byte(`{"items":[{"thumbnails":[` + strings.TrimSuffix(strings.Repeat(`"t",`, 10_001), ",") + `]}]}`),
				400, "items[0].thumbnails: holds more than 10,000 elements", []string{"items[0].thumbnails"}},
			{"33 levels deep", []byte(deep), 400, tooDeepPath + ": nests more than 32 levels deep", []string{tooDeepPath}},
			{"250,001 values", []byte(manyValues), 400, "the request holds more than 250,000 values in all", []string{""}},
			{"over 8 MiB", []byte(`{"note":"` + strings.Repeat("x", 8<<20) + `"}`), 413, "request body too large: the limit is 8 MiB", nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := srv.Do(t, "POST", "/api/v1/orders", acme.Token, tt.body)
				wantError(t, r, tt.status, codes.InvalidArgument, tt.message, tt.fields...)
			})
		}
		t.Run("a Content-Length over 8 MiB is refused unread", func(t *testing.T) {
			head := "POST /api/v1/orders HTTP/1.1\r\nHost: platen\r\nAuthorization: Bearer " + acme.Token +
				"\r\nContent-Length: 9437184\r\n\r\n"
			r := rawHTTP(t, srv, head)
			wantError(t, r, 413, codes.InvalidArgument, "request body too large: the limit is 8 MiB")
		})
		t.Run("gRPC", func(t *testing.T) {
			ctx := platentest.Bearer(context.Background(), acme.Token)
			msg := bytes.Repeat([]byte{0x12, 0x00}, 10_001)
			wantStatus(t, invokeRaw(ctx, srv.GRPC(t), "/platen.v1.OrderService/CreateOrder", msg),
				codes.InvalidArgument, "items: holds more than 10,000 elements", "items: holds more than 10,000 elements")
		})
	})
}

// An unauthenticated 8 MB request allocates almost nothing, over REST
// (through the real HTTP handler, in process) or gRPC (over a connection,
// the client's allocations counted too): the token is checked before a
// byte of the body or message is read. (The audit measured a gigabyte.)
// Allocations are counted process-wide, so each is the least of five
// tries, leaving out the server's background work.
func TestUnauthenticatedRequestCostsNoMemory(t *testing.T) {
	platentest.EachBackendInTurn(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		t.Run("REST", func(t *testing.T) {
			h := srv.Handler()
			allocated := leastAllocated(t, func() {
				req := httptest.NewRequest("POST", "/api/v1/orders", bytes.NewReader(eightMB))
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != 401 {
					t.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
			})
			t.Logf("an unauthenticated 8 MB POST allocated %d bytes", allocated)
		})
		t.Run("gRPC", func(t *testing.T) {
			conn := srv.GRPC(t)
			msg := bytes.Repeat([]byte{0x12, 0x00}, 4_000_000)
			allocated := leastAllocated(t, func() {
				err := invokeRaw(context.Background(), conn, "/platen.v1.OrderService/CreateOrder", msg)
				if status.Code(err) != codes.Unauthenticated {
					t.Fatalf("error %v", err)
				}
			})
			t.Logf("an unauthenticated 8 MB CreateOrder allocated %d bytes", allocated)
		})
	})
}

// leastAllocated runs call five times and returns the fewest bytes the
// process allocated during one, failing past 1 MiB.
func leastAllocated(t *testing.T, call func()) uint64 {
	t.Helper()
	least := uint64(1 << 62)
	for range 5 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		call()
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	if least > 1<<20 {
		t.Errorf("allocated %d bytes, want under 1 MiB", least)
	}
	return least
}

// BenchmarkUnauthenticatedBody measures an 8 MB POST /api/v1/orders
// without a token through the real HTTP handler (in process, no socket):
// time and allocations per request, on SQLite (serve's default; the body
// is refused before any database work).
func BenchmarkUnauthenticatedBody(b *testing.B) {
	benchmarkBody(b, "")
}

// BenchmarkAuthenticatedBody is the same body with a valid token: it is
// read until the scanner finds its 10,001st item, then refused.
func BenchmarkAuthenticatedBody(b *testing.B) {
	benchmarkBody(b, "token")
}

func benchmarkBody(b *testing.B, token string) {
	srv := platentest.Start(b, platentest.SQLite())
	if token != "" {
		token = srv.Bootstrap(b, "acme", "acme-shop").Token
	}
	h := srv.Handler()
	b.ReportAllocs()
	b.SetBytes(int64(len(eightMB)))
	for b.Loop() {
		req := httptest.NewRequest("POST", "/api/v1/orders", bytes.NewReader(eightMB))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 401 && rec.Code != 400 {
			b.Fatalf("status %d", rec.Code)
		}
	}
}

// BenchmarkUnauthenticatedMessage measures an 8 MB CreateOrder without a
// token over a real gRPC connection on loopback.
func BenchmarkUnauthenticatedMessage(b *testing.B) {
	srv := platentest.Start(b, platentest.SQLite())
	conn, err := grpc.NewClient(srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	msg := bytes.Repeat([]byte{0x12, 0x00}, 4_000_000)
	b.ReportAllocs()
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if err := invokeRaw(context.Background(), conn, "/platen.v1.OrderService/CreateOrder", msg); status.Code(err) != codes.Unauthenticated {
			b.Fatalf("error %v", err)
		}
	}
}
