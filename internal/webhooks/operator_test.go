package webhooks_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/operators"
	"github.com/platen-print/platen/internal/platentest"
)

// TestOperatorsManageStoreWebhooks: through the operator API, staff and
// the store's team's operator set the endpoint and rotate its secret, read
// the delivery log and resend; another team's operator finds no store.
func TestOperatorsManageStoreWebhooks(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		hooks := newReceiver(t)
		srv, tenant, secret := setup(t, b, hooks.URL)
		other := srv.Bootstrap(t, "other", "other-shop")
		staff, err := operators.Create(t.Context(), srv.DB().Operators(), "grace@example.com", "", true, nil)
		if err != nil {
			t.Fatal(err)
		}
		member, err := operators.Create(t.Context(), srv.DB().Operators(), "ada@example.com", "", false, &tenant.TeamID)
		if err != nil {
			t.Fatal(err)
		}
		outsider, err := operators.Create(t.Context(), srv.DB().Operators(), "lin@example.com", "", false, &other.TeamID)
		if err != nil {
			t.Fatal(err)
		}
		const base = "/api/v1/operator/stores/acme-shop"

		r := srv.Do(t, "PUT", base+"/webhook", member.Token, map[string]any{"url": hooks.URL + "/v2", "rotate_secret": true})
		ep := r.Object(t)
		if r.Status != http.StatusOK || ep["url"] != hooks.URL+"/v2" || ep["secret"] == secret || ep["previous_secret_expires_at"] == nil {
			t.Fatalf("the team's operator sets the endpoint: %d %s", r.Status, r.Raw)
		}
		if r := srv.Do(t, "POST", "/v1/shop/orders", tenant.Token, map[string]any{"external_id": "SO-9", "lines": []map[string]any{{"design_version_id": "sticker-v1", "quantity": 1}}}); r.Status != http.StatusCreated {
			t.Fatalf("shop order: %d %s", r.Status, r.Raw)
		}
		hooks.waitRequests(t, 1, 30*time.Second)
		var delivery map[string]any
		deadline := time.Now().Add(30 * time.Second)
		for delivery == nil || delivery["status"] != "delivered" {
			r := srv.Do(t, "GET", base+"/webhook-deliveries", staff.Token, nil)
			if list, _ := r.Object(t)["webhook_deliveries"].([]any); r.Status == http.StatusOK && len(list) == 1 {
				delivery = list[0].(map[string]any)
			}
			if time.Now().After(deadline) {
				t.Fatalf("the log, as staff read it: %d %s", r.Status, r.Raw)
			}
			time.Sleep(20 * time.Millisecond)
		}
		resent := srv.Do(t, "POST", base+"/webhook-deliveries/"+delivery["id"].(string)+"/resend", staff.Token, map[string]any{})
		if resent.Status != http.StatusOK || resent.Object(t)["id"] != delivery["id"] || resent.Object(t)["status"] != "pending" {
			t.Errorf("resend: %d %s", resent.Status, resent.Raw)
		}
		hooks.waitRequests(t, 2, 30*time.Second)

		for _, call := range []struct{ method, path string }{
			{"PUT", base + "/webhook"}, {"GET", base + "/webhook-deliveries"},
			{"POST", base + "/webhook-deliveries/" + delivery["id"].(string) + "/resend"},
		} {
			platentest.ErrorBody(t, srv.Do(t, call.method, call.path, outsider.Token, map[string]any{"url": "http://example.com"}), http.StatusNotFound)
		}
		platentest.ErrorBody(t, srv.Do(t, "GET", base+"/webhook-deliveries", tenant.Token, nil), http.StatusForbidden)
	})
}
