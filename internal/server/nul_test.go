package server_test

import (
	"context"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/structpb"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/platentest"
)

// A NUL anywhere in a request's strings, Struct keys and values included,
// is a 400 (InvalidArgument) naming its path, over REST and gRPC, on both
// databases: PostgreSQL cannot store one (it was a 500 there), SQLite
// stored it.
func TestNULRefused(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")

		t.Run("REST", func(t *testing.T) {
			withProperties := func(props any) map[string]any {
				body := platentest.OrderBody("acme-shop", "nul-rest")
				body["items"].([]any)[0].(map[string]any)["properties"] = props
				return body
			}
			for _, tc := range []struct {
				name, field, description string
				body                     any
			}{
				{"in a Struct's list", "items[0].properties.a[0]", "must not contain NUL characters",
					withProperties(map[string]any{"a": []any{"x\x00"}})},
				{"in a Struct's key", "items[0].properties", "must not have a key that contains NUL characters",
					withProperties(map[string]any{"a\x00": 1})},
				{"in a nested Struct", "items[0].properties.a.b", "must not contain NUL characters",
					withProperties(map[string]any{"a": map[string]any{"b": "\x00"}})},
				{"in a customer's name", "customer.name", "must not contain NUL characters",
					func() any {
						b := platentest.OrderBody("acme-shop", "nul-rest")
						b["customer"] = map[string]any{"name": "A\x00"}
						return b
					}()},
			} {
				t.Run(tc.name, func(t *testing.T) {
					r := srv.Do(t, "POST", "/api/v1/orders", acme.Token, tc.body)
					wantError(t, r, 400, codes.InvalidArgument, tc.field+": "+tc.description, tc.field)
				})
			}
			// Nothing was stored: the same order, clean, is created now.
			if r := srv.Do(t, "POST", "/api/v1/orders", acme.Token, platentest.OrderBody("acme-shop", "nul-rest")); r.Status != 200 {
				t.Errorf("the clean order: %d %s", r.Status, r.Raw)
			}
		})

		t.Run("gRPC", func(t *testing.T) {
			ctx := platentest.Bearer(context.Background(), acme.Token)
			conn := srv.GRPC(t)
			orders := platenv1.NewOrderServiceClient(conn)
			order := func() *platenv1.CreateOrderRequest {
				quantity := int32(1)
				return &platenv1.CreateOrderRequest{StoreId: "acme-shop", EcommerceOrderId: "nul-grpc",
					Items: []*platenv1.OrderItem{{EcommerceOrderItemId: "nul-grpc-1", EcommerceVariantId: "v", Quantity: &quantity,
						TemplateConfig: templateConfig, Thumbnails: []string{"https://x/t.png"}}}}
			}

			req := order()
			req.Note = wrap("a\x00b")
			_, err := orders.CreateOrder(ctx, req)
			wantStatus(t, err, codes.InvalidArgument, "note: must not contain NUL characters", "note: must not contain NUL characters")

			req = order()
			req.Items[0].Properties, _ = structpb.NewStruct(map[string]any{"a": []any{"x\x00"}})
			_, err = orders.CreateOrder(ctx, req)
			wantStatus(t, err, codes.InvalidArgument, "items[0].properties.a[0]: must not contain NUL characters",
				"items[0].properties.a[0]: must not contain NUL characters")

			req = order()
			req.Items[0].Thumbnails = append(req.Items[0].Thumbnails, "https://x/\x00.png")
			_, err = orders.CreateOrder(ctx, req)
			wantStatus(t, err, codes.InvalidArgument, "items[0].thumbnails[1]: must not contain NUL characters",
				"items[0].thumbnails[1]: must not contain NUL characters")

			quantity := int32(1)
			_, err = platenv1.NewShopServiceClient(conn).CreateShopOrder(ctx, &platenv1.CreateShopOrderRequest{
				ExternalId: "SO\x00", Lines: []*platenv1.ShopOrderLineInput{{DesignVersionId: "dv", Quantity: &quantity}}})
			wantStatus(t, err, codes.InvalidArgument, "external_id: must not contain NUL characters",
				"external_id: must not contain NUL characters")

			if _, err := orders.CreateOrder(ctx, order()); err != nil {
				t.Errorf("the clean order: %v", err)
			}
		})
	})
}
