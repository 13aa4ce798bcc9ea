package orders_test

import (
	"reflect"
	"testing"

	"github.com/platen-print/platen/internal/platentest"
)

// A team with two stores: a team-wide token sees both, a store-bound token
// only its own; an item id held by both stores needs ?store_id= to choose.
func TestStoresOfOneTeam(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		shopA := srv.Bootstrap(t, "acme", "acme-a")
		shopB := srv.Bootstrap(t, "acme", "acme-b")
		if shopA.TeamID != shopB.TeamID {
			t.Fatalf("stores in different teams: %d, %d", shopA.TeamID, shopB.TeamID)
		}
		teamToken := srv.TeamToken(t, shopA.TeamID)

		orderA := srv.Do(t, "POST", "/api/v1/orders", shopA.Token, fullOrder("acme-a", "1", item("same")))
		if orderA.Status != 200 {
			t.Fatalf("create in A: %d %s", orderA.Status, orderA.Raw)
		}
		// The same ids in another store of the team are allowed: they are
		// unique per store.
		orderB := srv.Do(t, "POST", "/api/v1/orders", teamToken, fullOrder("acme-b", "1", item("same")))
		if orderB.Status != 200 {
			t.Fatalf("create in B with the team token: %d %s", orderB.Status, orderB.Raw)
		}

		t.Run("a store-bound token acts on its store only", func(t *testing.T) {
			_, fields := platentest.ErrorBody(t, srv.Do(t, "POST", "/api/v1/orders", shopA.Token, fullOrder("acme-b", "2", item("x"))), 403)
			if !reflect.DeepEqual(fields, []string{"store_id"}) {
				t.Errorf("fields %v", fields)
			}
			uidB := orderB.Object(t)["uid"].(string)
			platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/orders/"+uidB, shopA.Token, nil), 404)
			platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/orders?store_id=acme-b", shopA.Token, nil), 403)
		})

		t.Run("print status of an item id two stores hold", func(t *testing.T) {
			msg, fields := platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/order-items/same/print", teamToken, nil), 409)
			if !reflect.DeepEqual(fields, []string{"store_id"}) || !contains(msg, "acme-a") || !contains(msg, "acme-b") {
				t.Errorf("409 should name both stores and the store_id parameter: %q %v", msg, fields)
			}
			want := map[string]any{"ecommerce_order_item_id": "same", "status": "received", "url": nil, "error": nil, "size": nil, "sha256": nil, "warnings": []any{}}
			for _, r := range []*platentest.Response{
				srv.Do(t, "GET", "/api/v1/order-items/same/print?store_id=acme-b", teamToken, nil),
				srv.Do(t, "GET", "/api/v1/order-items/same/print", shopA.Token, nil),
			} {
				if r.Status != 200 || !reflect.DeepEqual(r.JSON, want) {
					t.Errorf("narrowed print status: %d %s", r.Status, r.Raw)
				}
			}
			// A store-bound token naming another store of its team acts
			// outside its rights (403), as another team's store would.
			platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/order-items/same/print?store_id=acme-b", shopA.Token, nil), 403)
			platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/order-items/same/print?store_id=globex-shop", teamToken, nil), 403)
		})

		t.Run("a team token lists every store's orders", func(t *testing.T) {
			r := srv.Do(t, "GET", "/api/v1/orders", teamToken, nil)
			if n := len(r.Object(t)["orders"].([]any)); n != 2 {
				t.Errorf("team token lists %d orders, want 2", n)
			}
			r = srv.Do(t, "GET", "/api/v1/orders", shopA.Token, nil)
			if n := len(r.Object(t)["orders"].([]any)); n != 1 {
				t.Errorf("store token lists %d orders, want 1", n)
			}
		})
	})
}
