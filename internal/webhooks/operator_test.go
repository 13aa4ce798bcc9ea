package webhooks_test

import (
	"net/http"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
)

// TestOperatorsManageStoreWebhooks: through the operator API, staff and
// the store's team's operator set the endpoint and rotate its secret, read
// the delivery log and resend; another team's operator finds no store.
func TestOperatorsManageStoreWebhooks(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		hooks := platentest.NewReceiver(t)
		srv, tenant, secret := setup(t, b, hooks.URL)
		other := srv.Bootstrap(t, "other", "other-shop")
		staff := srv.Staff(t, "grace@example.com")
		member := srv.TeamOperator(t, "ada@example.com", tenant.TeamID)
		outsider := srv.TeamOperator(t, "lin@example.com", other.TeamID)
		const base = "/api/v1/operator/stores/acme-shop"

		r := srv.Do(t, "PUT", base+"/webhook", member.Token, map[string]any{"url": hooks.URL + "/v2", "rotate_secret": true})
		ep := r.Object(t)
		if r.Status != http.StatusOK || ep["url"] != hooks.URL+"/v2" || ep["secret"] == secret || ep["previous_secret_expires_at"] == nil {
			t.Fatalf("the team's operator sets the endpoint: %d %s", r.Status, r.Raw)
		}
		if r := srv.Do(t, "POST", "/v1/shop/orders", tenant.Token, map[string]any{"external_id": "SO-9", "lines": []map[string]any{{"design_version_id": "sticker-v1", "quantity": 1}}}); r.Status != http.StatusCreated {
			t.Fatalf("shop order: %d %s", r.Status, r.Raw)
		}
		hooks.Wait(t, 1, 30*time.Second)
		var delivery map[string]any
		var log *platentest.Response
		if !poll.Within(30*time.Second, srv.JobEnded(), func() bool {
			log = srv.Do(t, "GET", base+"/webhook-deliveries", staff.Token, nil)
			if list, _ := log.Object(t)["webhook_deliveries"].([]any); log.Status == http.StatusOK && len(list) == 1 {
				delivery = list[0].(map[string]any)
			}
			return delivery != nil && delivery["status"] == "delivered"
		}) {
			t.Fatalf("the log, as staff read it: %d %s", log.Status, log.Raw)
		}
		resent := srv.Do(t, "POST", base+"/webhook-deliveries/"+delivery["id"].(string)+"/resend", staff.Token, map[string]any{})
		if resent.Status != http.StatusOK || resent.Object(t)["id"] != delivery["id"] || resent.Object(t)["status"] != "pending" {
			t.Errorf("resend: %d %s", resent.Status, resent.Raw)
		}
		hooks.Wait(t, 2, 30*time.Second)

		for _, call := range []struct{ method, path string }{
			{"PUT", base + "/webhook"}, {"GET", base + "/webhook-deliveries"},
			{"POST", base + "/webhook-deliveries/" + delivery["id"].(string) + "/resend"},
		} {
			platentest.ErrorBody(t, srv.Do(t, call.method, call.path, outsider.Token, map[string]any{"url": "http://example.com"}), http.StatusNotFound)
		}
		platentest.ErrorBody(t, srv.Do(t, "GET", base+"/webhook-deliveries", tenant.Token, nil), http.StatusForbidden)
	})
}

// TestOperatorsReadStoreWebhookEndpoint: GetWebhookEndpoint, over REST and
// gRPC, answers the store's URL and secret to staff and to the store's
// team's operator, with the previous secret's expiry once rotated; a store
// with no URL is NOT_FOUND, another team's store too, whether it has one
// or not; a client's token does not reach it.
func TestOperatorsReadStoreWebhookEndpoint(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		hooks := platentest.NewReceiver(t)
		srv, tenant, secret := setup(t, b, hooks.URL)
		other := srv.Bootstrap(t, "other", "other-shop") // no URL set
		staff := srv.Staff(t, "grace@example.com")
		member := srv.TeamOperator(t, "ada@example.com", tenant.TeamID)
		outsider := srv.TeamOperator(t, "lin@example.com", other.TeamID)
		const path = "/api/v1/operator/stores/acme-shop/webhook"

		for _, token := range []string{staff.Token, member.Token} {
			r := srv.Do(t, "GET", path, token, nil)
			if ep := r.Object(t); r.Status != http.StatusOK || ep["url"] != hooks.URL+"/hooks" || ep["secret"] != secret ||
				ep["store_id"] != "acme-shop" || ep["previous_secret_expires_at"] != nil || ep["updated_at"] == nil {
				t.Errorf("GET %s: %d %s", path, r.Status, r.Raw)
			}
		}
		rotated := srv.Do(t, "PUT", path, member.Token, map[string]any{"url": hooks.URL + "/hooks", "rotate_secret": true}).Object(t)
		r := srv.Do(t, "GET", path, member.Token, nil)
		if ep := r.Object(t); ep["secret"] != rotated["secret"] || ep["secret"] == secret || ep["previous_secret_expires_at"] != rotated["previous_secret_expires_at"] ||
			ep["previous_secret_expires_at"] == nil {
			t.Errorf("after a rotation: %s, set answered %v", r.Raw, rotated)
		}
		platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/operator/stores/other-shop/webhook", staff.Token, nil), http.StatusNotFound)
		platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/operator/stores/nowhere/webhook", staff.Token, nil), http.StatusNotFound)
		platentest.ErrorBody(t, srv.Do(t, "GET", path, outsider.Token, nil), http.StatusNotFound)
		platentest.ErrorBody(t, srv.Do(t, "GET", path, tenant.Token, nil), http.StatusForbidden)

		ops := platenv1.NewOperatorServiceClient(srv.GRPC(t))
		ep, err := ops.GetWebhookEndpoint(platentest.Bearer(t.Context(), member.Token), &platenv1.GetWebhookEndpointRequest{StoreId: "acme-shop"})
		if err != nil || ep.Secret != rotated["secret"] || ep.Url != hooks.URL+"/hooks" || ep.PreviousSecretExpiresAt == nil {
			t.Errorf("gRPC, the team's operator: %v, %v", ep, err)
		}
		for _, tc := range []struct {
			name, token, store string
			want               codes.Code
		}{
			{"staff, a store with no URL", staff.Token, "other-shop", codes.NotFound},
			{"another team's operator", outsider.Token, "acme-shop", codes.NotFound},
			{"the other team's own store, with no URL", outsider.Token, "other-shop", codes.NotFound},
			{"a client's token", tenant.Token, "acme-shop", codes.PermissionDenied},
		} {
			if _, err := ops.GetWebhookEndpoint(platentest.Bearer(t.Context(), tc.token), &platenv1.GetWebhookEndpointRequest{StoreId: tc.store}); status.Code(err) != tc.want {
				t.Errorf("gRPC, %s: %v, want %s", tc.name, err, tc.want)
			}
		}
	})
}
