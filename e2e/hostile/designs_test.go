package hostile

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/designversions"
	"github.com/platen-print/platen/internal/platentest"
)

// The two documents that took the renderer down: the first spun in the
// drawing library's path code for ever, the second panicked it.
const (
	spinningDoc = `{"width":100,"height":100,"layers":[{"type":"rect","x":10,"y":10,"width":50,"height":50,"fill":"#000","stroke":"#f00","stroke_width":1e308,"rotation":1e308}]}`
	panicDoc    = `{"width":100,"height":100,"layers":[{"type":"rect","x":-1e308,"y":1e308,"width":1e308,"height":1e308,"stroke_width":1e308,"radius":1e308,"rotation":1e308,"fill":"#000"}]}`
)

// TestDocumentsThatTookTheRendererDownAreRefusedAtTheDoor: both documents
// are a 400 naming the member, at order creation (REST and gRPC) and at
// design-version registration, and create nothing.
func TestDocumentsThatTookTheRendererDownAreRefusedAtTheDoor(t *testing.T) {
	platentest.EachBackendInTurn(t, func(t *testing.T, b platentest.Backend) {
		srv := start(t, b, nil)
		tenant := srv.Bootstrap(t, "attacker", "shop-a")
		for doc, member := range map[string]string{spinningDoc: "layers[0].stroke_width", panicDoc: "layers[0].x"} {
			r := srv.Do(t, "POST", "/api/v1/orders", tenant.Token, platentest.OrderBody(tenant.StoreID, "evil-1", platentest.PrintFiles(), platentest.Design(doc)))
			if _, fields := platentest.ErrorBody(t, r, http.StatusBadRequest); !slices.Contains(fields, "items[0].template_config."+member) {
				t.Errorf("order: fields %v; want items[0].template_config.%s", fields, member)
			}
			r = srv.Do(t, "POST", "/api/v1/design-versions", tenant.Token, map[string]any{"design_version_id": "evil", "template_config": url.QueryEscape(doc)})
			if _, fields := platentest.ErrorBody(t, r, http.StatusBadRequest); !slices.Contains(fields, "template_config."+member) {
				t.Errorf("design version: fields %v; want template_config.%s", fields, member)
			}
			wantGRPCViolation(t, srv, tenant, doc, "items[0].template_config."+member)
		}
		if r := srv.Do(t, "GET", "/api/v1/orders?store_id="+tenant.StoreID, tenant.Token, nil); len(r.Object(t)["orders"].([]any)) != 0 {
			t.Errorf("a refused order was stored: %s", r.Raw)
		}
	})
}

func wantGRPCViolation(t *testing.T, srv *platentest.Server, tenant platentest.Tenant, doc, field string) {
	t.Helper()
	client := platenv1.NewOrderServiceClient(srv.GRPC(t))
	_, err := client.CreateOrder(platentest.Bearer(context.Background(), tenant.Token), &platenv1.CreateOrderRequest{
		StoreId: tenant.StoreID, EcommerceOrderId: "evil-grpc",
		Items: []*platenv1.OrderItem{{
			EcommerceOrderItemId: "evil-grpc-1", EcommerceVariantId: "v", Quantity: proto.Int32(1),
			Thumbnails: []string{"https://example.com/t.png"}, TemplateConfig: url.QueryEscape(doc),
		}},
	})
	st := status.Convert(err)
	if st.Code() != codes.InvalidArgument {
		t.Fatalf("gRPC CreateOrder: %v; want INVALID_ARGUMENT", err)
	}
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			for _, v := range br.GetFieldViolations() {
				if v.GetField() == field {
					return
				}
			}
		}
	}
	t.Errorf("gRPC CreateOrder: %v names no %s", err, field)
}

// TestAStoredDocumentOutOfBoundsFailsAtRender: a version stored before the
// bounds existed is checked again before rendering: its print fails with
// the reason, and the render processes go on serving everyone.
func TestAStoredDocumentOutOfBoundsFailsAtRender(t *testing.T) {
	platentest.EachBackendInTurn(t, func(t *testing.T, b platentest.Backend) {
		srv := start(t, b, nil)
		attacker := srv.Bootstrap(t, "attacker", "shop-a")
		other := srv.Bootstrap(t, "other", "shop-b")
		fingerprint, err := designdoc.Fingerprint([]byte(panicDoc))
		if err != nil {
			t.Fatal(err)
		}
		// As an older release stored it: straight into the registry.
		if _, err := srv.DB().Designs().RegisterVersion(context.Background(), &designversions.Version{
			TeamID: attacker.TeamID, ID: "old-evil", TemplateConfig: url.QueryEscape(panicDoc), Fingerprint: fingerprint, Thumbnails: []string{},
		}); err != nil {
			t.Fatal(err)
		}
		r := srv.Do(t, "POST", "/v1/shop/orders", attacker.Token, map[string]any{"external_id": "SO-1", "lines": []map[string]any{{"design_version_id": "old-evil", "quantity": 1}}})
		if r.Status != http.StatusCreated {
			t.Fatalf("shop order: %d %s", r.Status, r.Raw)
		}
		order := srv.WaitShopOrder(t, attacker.Token, "SO-1")
		print := order["lines"].([]any)[0].(map[string]any)["prints"].([]any)[0].(map[string]any)
		if print["status"] != "failed" {
			t.Fatalf("the print is %v, want failed", print["status"])
		}
		// The shop reads the reason in the print's error (extension).
		if want := "layers[0].x: must be from -10000 to 10000 mm, got -1e+308"; print["error"] != want {
			t.Errorf("the failed print's error %v; want %q", print["error"], want)
		}
		referenceOrderReady(t, srv, other, "ref-1")
	})
}
