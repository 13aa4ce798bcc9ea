package server_test

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/platentest"
)

// Idempotency-Key applies to creates only, and a token bound to another
// store of the team never replays this store's answer.
func TestIdempotencyScope(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		shopA := srv.Bootstrap(t, "acme", "acme-a")
		shopB := srv.Bootstrap(t, "acme", "acme-b")
		created := srv.Do(t, "POST", "/api/v1/orders", shopA.Token, platentest.OrderBody("acme-a", "k"), "Idempotency-Key", "K1")
		if created.Status != 200 {
			t.Fatalf("create: %d %s", created.Status, created.Raw)
		}
		// The same body and key from store B's token: its own request, refused
		// as acting for store A, never A's order replayed.
		platentest.ErrorBody(t, srv.Do(t, "POST", "/api/v1/orders", shopB.Token, platentest.OrderBody("acme-a", "k"), "Idempotency-Key", "K1"), 403)

		uid := created.Object(t)["uid"].(string)
		first := srv.Do(t, "GET", "/api/v1/orders/"+uid, shopA.Token, nil, "Idempotency-Key", "G")
		srv.Do(t, "PUT", "/api/v1/orders/"+uid, shopA.Token, `{"note":"changed"}`, "Idempotency-Key", "G")
		again := srv.Do(t, "GET", "/api/v1/orders/"+uid, shopA.Token, nil, "Idempotency-Key", "G")
		if again.Object(t)["note"] != "changed" || reflect.DeepEqual(first.JSON, again.JSON) {
			t.Errorf("a key on GET replayed a stale answer: %s", again.Raw)
		}
	})
}

// What gRPC or a database cannot carry is refused as 400, never 500.
func TestUnrepresentableInput(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		for _, path := range []string{
			"/api/v1/orders/%FF", "/api/v1/orders/a%00b", "/api/v1/order-items/%FF/print",
			"/api/v1/orders?store_id=%FF", "/api/v1/orders?store_id=a%00",
		} {
			platentest.ErrorBody(t, srv.Do(t, "GET", path, acme.Token, nil), 400)
		}
		body := platentest.OrderBody("acme-shop", "nul")
		body["note"] = "a\x00b"
		_, fields := platentest.ErrorBody(t, srv.Do(t, "POST", "/api/v1/orders", acme.Token, body), 400)
		if !reflect.DeepEqual(fields, []string{"note"}) {
			t.Errorf("fields %v", fields)
		}
		platentest.ErrorBody(t, srv.Do(t, "POST", "/api/v1/orders", acme.Token, platentest.OrderBody("acme-shop", "x"), "Idempotency-Key", "ключ"), 400)
	})
}

// Concurrent PUTs of one order apply one after the other: the items end as
// exactly one request's array, never a mix, and nobody gets a 500.
func TestConcurrentUpdates(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		for round := 0; round < 10; round++ {
			id := fmt.Sprintf("cu-%d", round)
			created := srv.Do(t, "POST", "/api/v1/orders", acme.Token, platentest.OrderBody("acme-shop", id))
			uid := created.Object(t)["uid"].(string)
			// Each PUT keeps the first item and adds one of its own.
			sets := map[string][]string{}
			var wg sync.WaitGroup
			for _, extra := range []string{"x", "y"} {
				body := platentest.OrderBody("acme-shop", id)
				items := body["items"].([]any)
				next := map[string]any{}
				for k, v := range items[0].(map[string]any) {
					next[k] = v
				}
				next["ecommerce_order_item_id"] = id + "-" + extra
				sets[extra] = []string{id + "-1", id + "-" + extra}
				put := map[string]any{"items": []any{items[0], next}}
				wg.Go(func() {
					// Not srv.Do: t.Fatal must not be called off the test's goroutine.
					r, err := srv.Try("PUT", "/api/v1/orders/"+uid, acme.Token, put)
					switch {
					case err != nil:
						t.Error(err)
					case r.Status != 200:
						t.Errorf("PUT: %d %s", r.Status, r.Raw)
					}
				})
			}
			wg.Wait()
			var got []string
			for _, it := range srv.Do(t, "GET", "/api/v1/orders/"+uid, acme.Token, nil).Object(t)["items"].([]any) {
				itemID, _ := it.(map[string]any)["ecommerce_order_item_id"].(string)
				got = append(got, itemID)
			}
			slices.Sort(got)
			if !slices.Equal(got, sets["x"]) && !slices.Equal(got, sets["y"]) {
				t.Errorf("round %d: items %q after two PUTs, want exactly one PUT's: %q or %q", round, got, sets["x"], sets["y"])
			}
		}
	})
}

// Past --rate-limit a token gets 429 with Retry-After, as JSON; another
// token has its own bucket.
func TestRateLimit(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.StartWith(t, b, func(c *config.Config) { c.RateLimit, c.RateBurst = 1, 3 })
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		codes := map[int]int{}
		var limited *platentest.Response
		// Until the first 429: a slow machine may see a token or two refilled.
		for i := 0; i < 20 && limited == nil; i++ {
			r := srv.Do(t, "GET", "/api/v1/orders", acme.Token, nil)
			codes[r.Status]++
			if r.Status == 429 {
				limited = r
			}
		}
		if codes[200] < 3 || limited == nil {
			t.Fatalf("answers %v: want the burst of 3 to pass and then 429", codes)
		}
		platentest.ErrorBody(t, limited, 429)
		if limited.Header.Get("Retry-After") == "" {
			t.Error("429 without Retry-After")
		}
		other := srv.TeamToken(t, acme.TeamID)
		if r := srv.Do(t, "GET", "/api/v1/orders", other, nil); r.Status != 200 {
			t.Errorf("another token: %d", r.Status)
		}
	})
}
