package hostile

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/platentest"
)

// emptyItems is an 8 MB order of empty items: decoded whole, one took the
// server from 118 MB to 1.16 GB before it answered 401.
func emptyItems() []byte {
	body := append(make([]byte, 0, 8<<20), `{"items":[`...)
	for len(body) < 8<<20-16 {
		body = append(body, "{},"...)
	}
	return append(body, "{}]}"...)
}

// TestUnauthenticatedFloodsCostNothing: eight senders of 8 MB bodies
// without a token, for two seconds, get 401s; the server's memory and
// /healthz hold and another team's order is ready meanwhile.
func TestUnauthenticatedFloodsCostNothing(t *testing.T) {
	platentest.EachBackendInTurn(t, func(t *testing.T, b platentest.Backend) {
		srv := start(t, b, nil)
		other := srv.Bootstrap(t, "other", "shop-b")
		c := watch(t, srv)
		body := emptyItems()
		ctx, stop := context.WithTimeout(context.Background(), 2*time.Second)
		defer stop()
		var mu sync.Mutex
		answers := map[int]int{}
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					req, _ := http.NewRequestWithContext(ctx, "POST", srv.BaseURL+"/api/v1/orders", bytes.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						continue // the test's own deadline, or the server closing a connection it did not read
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					mu.Lock()
					answers[resp.StatusCode]++
					mu.Unlock()
				}
			}()
		}
		referenceOrderReady(t, srv, other, "ref-1")
		wg.Wait()
		c.check(t)
		mu.Lock()
		defer mu.Unlock()
		t.Logf("answers: %v", answers)
		if len(answers) != 1 || answers[http.StatusUnauthorized] == 0 {
			t.Errorf("answers %v; want only 401s", answers)
		}
	})
}

// TestNULIsRefusedAlikeOnBothDatabases: NUL in properties (a value or a
// key) and in a note was a 500 on PostgreSQL and stored on SQLite; now
// both answer 400 (REST) and INVALID_ARGUMENT (gRPC) naming the field.
func TestNULIsRefusedAlikeOnBothDatabases(t *testing.T) {
	platentest.EachBackendInTurn(t, func(t *testing.T, b platentest.Backend) {
		srv := start(t, b, nil)
		tenant := srv.Bootstrap(t, "acme", "shop-a")
		for name, tc := range map[string]struct {
			edit  func(map[string]any)
			field string
		}{
			"a value in properties": {func(o map[string]any) { item(o)["properties"] = map[string]any{"a": []any{"x\u0000"}} }, "items[0].properties.a[0]"},
			"a key of properties":   {func(o map[string]any) { item(o)["properties"] = map[string]any{"a\u0000": 1} }, "items[0].properties"},
			"the note":              {func(o map[string]any) { o["note"] = "a\u0000b" }, "note"},
		} {
			o := platentest.OrderBody(tenant.StoreID, "nul-1", platentest.PrintFiles(), platentest.Design(referenceDoc))
			tc.edit(o)
			r := srv.Do(t, "POST", "/api/v1/orders", tenant.Token, o)
			if _, fields := platentest.ErrorBody(t, r, http.StatusBadRequest); !slices.ContainsFunc(fields, func(f string) bool { return len(f) >= len(tc.field) && f[:len(tc.field)] == tc.field }) {
				t.Errorf("%s: fields %v; want %s", name, fields, tc.field)
			}
		}
		client := platenv1.NewOrderServiceClient(srv.GRPC(t))
		_, err := client.CreateOrder(platentest.Bearer(context.Background(), tenant.Token), &platenv1.CreateOrderRequest{
			StoreId: tenant.StoreID, EcommerceOrderId: "nul-grpc", Note: wrapperspb.String("a\x00b"),
		})
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("gRPC note with NUL: %v; want INVALID_ARGUMENT", err)
		}
	})
}

func item(o map[string]any) map[string]any { return o["items"].([]any)[0].(map[string]any) }
