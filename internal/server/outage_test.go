package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
)

// TestPostgresOutage: with PostgreSQL gone (connections reset, new ones
// refused), /readyz says 503, API calls answer 503 with Retry-After at
// once (never 500, never a hang), gRPC answers UNAVAILABLE; once it is
// back, service resumes by itself within 5 s.
func TestPostgresOutage(t *testing.T) {
	var b platentest.Backend
	for _, each := range platentest.Backends() {
		if each.Name == "postgres" {
			b = each
		}
	}
	if b.Name == "" {
		t.Skip("PostgreSQL is not configured (" + platentest.PostgresEnv + "); TestPostgresConfigured says so too")
	}
	srv, outage := platentest.StartWithPostgresOutage(t, b, nil)
	tenant := srv.Bootstrap(t, "acme", "acme-shop")
	if r := srv.Do(t, "POST", "/api/v1/orders", tenant.Token, platentest.OrderBody("acme-shop", "before")); r.Status != http.StatusOK {
		t.Fatalf("create before the outage: %d %s", r.Status, r.Raw)
	}
	client := platenv1.NewOrderServiceClient(srv.GRPC(t))

	outage.Down()
	readyz(t, srv, http.StatusServiceUnavailable, "unavailable", "")
	for _, call := range []struct {
		method, path string
		body         any
	}{
		{"GET", "/api/v1/orders?store_id=acme-shop", nil},
		{"GET", "/api/v1/orders/nope", nil},
		{"POST", "/api/v1/orders", platentest.OrderBody("acme-shop", "during")},
	} {
		start := time.Now()
		r := srv.Do(t, call.method, call.path, tenant.Token, call.body)
		took := time.Since(start)
		if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
			t.Errorf("%s %s during the outage: %d (Retry-After %q) %s, want 503 with Retry-After", call.method, call.path, r.Status, r.Header.Get("Retry-After"), r.Raw)
		}
		if msg, _ := r.Object(t)["message"].(string); !strings.Contains(msg, "database") {
			t.Errorf("%s %s: message %q does not say what is missing", call.method, call.path, msg)
		}
		if took > 6*time.Second {
			t.Errorf("%s %s took %v to answer", call.method, call.path, took)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := client.ListOrders(platentest.Bearer(ctx, tenant.Token), &platenv1.ListOrdersRequest{StoreId: "acme-shop"})
	if status.Code(err) != codes.Unavailable {
		t.Errorf("gRPC ListOrders during the outage: %v, want UNAVAILABLE", err)
	}

	outage.Up()
	back := time.Now()
	var r *platentest.Response
	if !poll.Within(5*time.Second, nil, func() bool {
		r = srv.Do(t, "POST", "/api/v1/orders", tenant.Token, platentest.OrderBody("acme-shop", "after"))
		return r.Status == http.StatusOK
	}) {
		t.Fatalf("5 s after the database came back: %d %s", r.Status, r.Raw)
	}
	t.Logf("service resumed %v after the database came back", time.Since(back).Round(time.Millisecond))
	readyz(t, srv, http.StatusOK, "ok", "")
}
