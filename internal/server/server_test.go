package server_test

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/platentest"
)

var templateConfig = url.QueryEscape(`{"version":1,"width":10,"height":10,"layers":[]}`)

func TestGatewayConventions(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")

		t.Run("unknown path is a JSON 404", func(t *testing.T) {
			r := srv.Do(t, "GET", "/api/v1/nothing-here", acme.Token, nil)
			platentest.ErrorBody(t, r, 404)
		})
		t.Run("known path with a wrong method is a JSON 405", func(t *testing.T) {
			r := srv.Do(t, "PATCH", "/api/v1/orders/abc", acme.Token, "{}")
			platentest.ErrorBody(t, r, 405)
		})
		t.Run("a body over 8 MiB is a JSON 413", func(t *testing.T) {
			big := `{"note":"` + strings.Repeat("x", 8<<20) + `"}`
			r := srv.Do(t, "POST", "/api/v1/orders", acme.Token, big)
			platentest.ErrorBody(t, r, 413)
		})
		t.Run("a body just under 8 MiB is read and validated", func(t *testing.T) {
			body := `{"note":"` + strings.Repeat("x", 8<<20-100) + `"}`
			r := srv.Do(t, "POST", "/api/v1/orders", acme.Token, body)
			platentest.ErrorBody(t, r, 400)
		})
		t.Run("request ids are echoed, or made", func(t *testing.T) {
			r := srv.Do(t, "GET", "/healthz", "", nil, "X-Request-Id", "trace-123")
			if got := r.Header.Get("X-Request-Id"); got != "trace-123" {
				t.Errorf("X-Request-Id = %q", got)
			}
			r = srv.Do(t, "GET", "/api/v1/orders/x", acme.Token, nil)
			if got := r.Header.Get("X-Request-Id"); len(got) < 16 {
				t.Errorf("made X-Request-Id = %q", got)
			}
		})
		t.Run("health and readiness", func(t *testing.T) {
			for _, p := range []string{"/healthz", "/readyz"} {
				r := srv.Do(t, "GET", p, "", nil)
				if r.Status != 200 || !reflect.DeepEqual(r.JSON, map[string]any{"status": "ok"}) {
					t.Errorf("%s: %d %s", p, r.Status, r.Raw)
				}
			}
		})
		t.Run("metrics count requests by route and status", func(t *testing.T) {
			srv.Do(t, "GET", "/api/v1/orders/does-not-exist", acme.Token, nil)
			r := srv.Do(t, "GET", "/metrics", "", nil)
			want := `platen_http_requests_total{code="404",method="GET",route="/api/v1/orders/{order_uid}"}`
			if !strings.Contains(string(r.Raw), want) {
				t.Errorf("metrics lack %s", want)
			}
			if !strings.Contains(string(r.Raw), `platen_grpc_requests_total{code="NotFound",method="/platen.v1.OrderService/GetOrder"}`) {
				t.Errorf("metrics lack the gRPC call count")
			}
			if !strings.Contains(string(r.Raw), "platen_http_request_duration_seconds_bucket") {
				t.Errorf("metrics lack the latency histogram")
			}
			gzipped, _ := platentest.Get(t, http.DefaultClient, srv.BaseURL+"/metrics", "Accept-Encoding", "gzip")
			if vary := gzipped.Header.Values("Vary"); gzipped.Header.Get("Content-Encoding") != "gzip" ||
				strings.Count(strings.Join(vary, ","), "Accept-Encoding") != 1 {
				t.Errorf("gzipped scrape: Content-Encoding %q, Vary %q; want gzip, Accept-Encoding once",
					gzipped.Header.Get("Content-Encoding"), vary)
			}
			// A route beside the API is named by its documented path too.
			srv.Do(t, "GET", "/files/no/such/file", "", nil)
			r = srv.Do(t, "GET", "/metrics", "", nil)
			if want := `method="GET",route="/files/{key}"}`; !strings.Contains(string(r.Raw), want) {
				t.Errorf("metrics lack %s", want)
			}
		})
	})
}

func TestIdempotencyKey(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		body := platentest.OrderBody("acme-shop", "idem-1")
		first := srv.Do(t, "POST", "/api/v1/orders", acme.Token, body, "Idempotency-Key", "k-1")
		if first.Status != 200 {
			t.Fatalf("first: %d %s", first.Status, first.Raw)
		}
		if v := first.Header.Values("Idempotent-Replayed"); v != nil {
			t.Errorf("first answer: Idempotent-Replayed %q, want none", v)
		}
		replay := srv.Do(t, "POST", "/api/v1/orders", acme.Token, body, "Idempotency-Key", "k-1")
		if replay.Status != 200 || !reflect.DeepEqual(replay.JSON, first.JSON) {
			t.Fatalf("replay: %d %s, want the first answer %s", replay.Status, replay.Raw, first.Raw)
		}
		if v := replay.Header.Values("Idempotent-Replayed"); len(v) != 1 || v[0] != "true" {
			t.Errorf("replay: Idempotent-Replayed %q, want true", v)
		}
		other := platentest.OrderBody("acme-shop", "idem-2")
		platentest.ErrorBody(t, srv.Do(t, "POST", "/api/v1/orders", acme.Token, other, "Idempotency-Key", "k-1"), 409)

		// Without a key the same body is a duplicate order.
		platentest.ErrorBody(t, srv.Do(t, "POST", "/api/v1/orders", acme.Token, body), 409)

		// After a delete, the replay still answers the deleted order, and
		// says it is a replay.
		uid, _ := first.Object(t)["uid"].(string)
		if r := srv.Do(t, "DELETE", "/api/v1/orders/"+uid, acme.Token, nil); r.Status != 200 {
			t.Fatalf("delete: %d %s", r.Status, r.Raw)
		}
		afterDelete := srv.Do(t, "POST", "/api/v1/orders", acme.Token, body, "Idempotency-Key", "k-1")
		if afterDelete.Status != 200 || afterDelete.Object(t)["uid"] != uid || afterDelete.Header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("replay after the delete: %d, Idempotent-Replayed %q, %s", afterDelete.Status, afterDelete.Header.Get("Idempotent-Replayed"), afterDelete.Raw)
		}
		if r := srv.Do(t, "GET", "/api/v1/orders/"+uid, acme.Token, nil, "Idempotency-Key", "k-1"); r.Status != 404 || r.Header.Get("Idempotent-Replayed") != "" {
			t.Errorf("a GET with the key: %d, Idempotent-Replayed %q", r.Status, r.Header.Get("Idempotent-Replayed"))
		}

		// A failed request does not use up its key.
		bad := platentest.OrderBody("acme-shop", "idem-3")
		bad["items"] = []any{}
		platentest.ErrorBody(t, srv.Do(t, "POST", "/api/v1/orders", acme.Token, bad, "Idempotency-Key", "k-3"), 400)
		if r := srv.Do(t, "POST", "/api/v1/orders", acme.Token, platentest.OrderBody("acme-shop", "idem-3"), "Idempotency-Key", "k-3"); r.Status != 200 {
			t.Errorf("retry after a failure: %d %s", r.Status, r.Raw)
		}

		// Keys are per team: another team's same key is its own.
		globex := srv.Bootstrap(t, "globex", "globex-shop")
		if r := srv.Do(t, "POST", "/api/v1/orders", globex.Token, platentest.OrderBody("globex-shop", "idem-1"), "Idempotency-Key", "k-1"); r.Status != 200 || r.Header.Get("Idempotent-Replayed") != "" {
			t.Errorf("another team's key: %d, Idempotent-Replayed %q, %s", r.Status, r.Header.Get("Idempotent-Replayed"), r.Raw)
		}

		// Family B's 201 is replayed as 201, and marked.
		design := map[string]any{"design_version_id": "d-1", "template_config": templateConfig}
		if r := srv.Do(t, "POST", "/api/v1/design-versions", acme.Token, design); r.Status != 200 {
			t.Fatalf("design: %d %s", r.Status, r.Raw)
		}
		shop := map[string]any{"external_id": "SO-1", "lines": []any{map[string]any{"design_version_id": "d-1", "quantity": 1}}}
		for i, want := range []string{"", "true"} {
			r := srv.Do(t, "POST", "/v1/shop/orders", acme.Token, shop, "Idempotency-Key", "shop-1")
			if r.Status != 201 || r.Header.Get("Idempotent-Replayed") != want {
				t.Errorf("shop order, request %d: %d, Idempotent-Replayed %q, want 201 and %q", i+1, r.Status, r.Header.Get("Idempotent-Replayed"), want)
			}
		}

		// Over gRPC the replay carries the response header metadata
		// idempotent-replayed: true, and the first answer none.
		client := platenv1.NewOrderServiceClient(srv.GRPC(t))
		ctx := metadata.AppendToOutgoingContext(platentest.Bearer(context.Background(), acme.Token), "idempotency-key", "grpc-1")
		quantity := int32(1)
		req := &platenv1.CreateOrderRequest{StoreId: "acme-shop", EcommerceOrderId: "idem-grpc", Items: []*platenv1.OrderItem{{
			EcommerceOrderItemId: "idem-grpc-1", EcommerceVariantId: "v", Quantity: &quantity,
			TemplateConfig: templateConfig, Thumbnails: []string{"https://x/t.png"},
		}}}
		var firstMD, replayMD metadata.MD
		created, err := client.CreateOrder(ctx, req, grpc.Header(&firstMD))
		if err != nil {
			t.Fatalf("CreateOrder: %v", err)
		}
		again, err := client.CreateOrder(ctx, req, grpc.Header(&replayMD))
		if err != nil || !proto.Equal(again, created) {
			t.Fatalf("CreateOrder again = %v, %v; want the first answer", again, err)
		}
		if v := firstMD.Get("idempotent-replayed"); v != nil {
			t.Errorf("gRPC first answer: idempotent-replayed %q, want none", v)
		}
		if v := replayMD.Get("idempotent-replayed"); len(v) != 1 || v[0] != "true" {
			t.Errorf("gRPC replay: idempotent-replayed %q, want true", v)
		}
	})
}

func TestGRPC(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		conn := srv.GRPC(t)
		client := platenv1.NewOrderServiceClient(conn)
		ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+acme.Token)
		quantity := int32(3)
		created, err := client.CreateOrder(ctx, &platenv1.CreateOrderRequest{
			StoreId: "acme-shop", EcommerceOrderId: "g-1",
			Items: []*platenv1.OrderItem{{
				EcommerceOrderItemId: "g-1-1", EcommerceVariantId: "v", Quantity: &quantity,
				TemplateConfig: templateConfig, Thumbnails: []string{"https://x/t.png"},
			}},
		})
		if err != nil {
			t.Fatalf("CreateOrder: %v", err)
		}
		// The same order over REST, with the same token.
		r := srv.Do(t, "GET", "/api/v1/orders/"+created.Uid, acme.Token, nil)
		if r.Status != 200 || r.Object(t)["ecommerce_order_id"] != "g-1" {
			t.Fatalf("REST sees %d %s", r.Status, r.Raw)
		}
		got, err := client.GetOrder(ctx, &platenv1.GetOrderRequest{OrderUid: created.Uid})
		if err != nil || !proto.Equal(got, created) {
			t.Fatalf("GetOrder = %v, %v", got, err)
		}
		p, err := client.GetOrderItemPrint(ctx, &platenv1.GetOrderItemPrintRequest{EcommerceOrderItemId: "g-1-1"})
		if err != nil || p.Status != "received" || p.Url != nil {
			t.Fatalf("GetOrderItemPrint = %v, %v", p, err)
		}
		// gRPC update without a mask replaces what is set.
		note := "over grpc"
		updated, err := client.UpdateOrder(ctx, &platenv1.UpdateOrderRequest{OrderUid: created.Uid, Note: wrap(note)})
		if err != nil || updated.GetNote().GetValue() != note || len(updated.Items) != 1 {
			t.Fatalf("UpdateOrder = %v, %v", updated, err)
		}

		_, err = client.GetOrder(context.Background(), &platenv1.GetOrderRequest{OrderUid: created.Uid})
		if status.Code(err) != codes.Unauthenticated {
			t.Errorf("no token: %v", err)
		}
		bad := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer plt_nope")
		if _, err = client.GetOrder(bad, &platenv1.GetOrderRequest{OrderUid: created.Uid}); status.Code(err) != codes.Unauthenticated {
			t.Errorf("wrong token: %v", err)
		}
		_, err = client.CreateOrder(ctx, &platenv1.CreateOrderRequest{StoreId: "acme-shop"})
		st := status.Convert(err)
		if st.Code() != codes.InvalidArgument || len(st.Details()) != 1 {
			t.Errorf("invalid create: %v %v", st.Code(), st.Details())
		}
	})
}

func TestGRPCHealthAndReflection(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		conn := srv.GRPC(t)
		resp, err := healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{})
		if err != nil || resp.Status != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("health: %v %v", resp, err)
		}
		stream, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(context.Background())
		if err != nil {
			t.Fatalf("reflection: %v", err)
		}
		if err := stream.Send(&reflectionpb.ServerReflectionRequest{
			MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{},
		}); err != nil {
			t.Fatalf("send: %v", err)
		}
		got, err := stream.Recv()
		if err != nil {
			t.Fatalf("recv: %v", err)
		}
		names := map[string]bool{}
		for _, s := range got.GetListServicesResponse().GetService() {
			names[s.Name] = true
		}
		for _, want := range []string{"platen.v1.OrderService", "platen.v1.ShopService", "platen.v1.CatalogService", "grpc.health.v1.Health"} {
			if !names[want] {
				t.Errorf("reflection lacks %s: %v", want, names)
			}
		}
		_ = http.MethodGet
	})
}
