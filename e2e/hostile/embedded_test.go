package hostile

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/platentest"
)

// zerosDoc is a design whose meta holds n zeros: 8 MB at 4,000,000, the
// template_config that took a design version to 378 MB.
func zerosDoc(n int) string {
	return `{"width":50,"height":50,"layers":[],"meta":{"a":[` + strings.TrimSuffix(strings.Repeat("0,", n), ",") + `]}}`
}

// violations are the field violations of an error answer, field to
// description.
func violations(t *testing.T, r *platentest.Response, status int) map[string]string {
	t.Helper()
	platentest.ErrorBody(t, r, status)
	var body struct {
		Details []struct {
			FieldViolations []struct{ Field, Description string } `json:"field_violations"`
		}
	}
	if err := json.Unmarshal(r.Raw, &body); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range body.Details {
		for _, v := range d.FieldViolations {
			out[v.Field] = v.Description
		}
	}
	return out
}

// TestEveryEmbeddedDocumentMeetsTheLimits: each endpoint that takes a
// template_config refuses the 4,000,000-zero design (JSON as it is, or
// URL-encoded) with a 400 naming the member inside it and the limit,
// REST and gRPC alike.
func TestEveryEmbeddedDocumentMeetsTheLimits(t *testing.T) {
	srv := start(t, platentest.SQLite(), nil)
	acme := srv.Bootstrap(t, "acme", "acme-shop")
	doc := zerosDoc(4_000_000)
	const limit = "holds more than 10,000 elements"
	created := srv.Do(t, "POST", "/api/v1/orders", acme.Token, platentest.OrderBody(acme.StoreID, "1", platentest.PrintFiles(), platentest.Design(referenceDoc)))
	if created.Status != http.StatusOK {
		t.Fatalf("an order: %d %s", created.Status, created.Raw)
	}
	uid := created.Object(t)["uid"].(string)
	for _, config := range []string{doc, url.QueryEscape(zerosDoc(1_900_000))} {
		encoded := "URL-encoded"
		if strings.HasPrefix(config, "{") {
			encoded = "as JSON"
		}
		withDoc := platentest.OrderBody(acme.StoreID, "2", platentest.PrintFiles(), platentest.Items(map[string]any{"template_config": config}))
		for _, call := range []struct {
			name, method, path, field string
			body                      any
		}{
			{"a design version", "POST", "/api/v1/design-versions", "template_config.meta.a", map[string]any{"template_config": config}},
			{"an order", "POST", "/api/v1/orders", "items[0].template_config.meta.a", withDoc},
			{"an order's update", "PUT", "/api/v1/orders/" + uid, "items[0].template_config.meta.a", map[string]any{"items": withDoc["items"]}},
		} {
			t.Run(call.name+", "+encoded, func(t *testing.T) {
				r := srv.Do(t, call.method, call.path, acme.Token, call.body)
				if got := violations(t, r, http.StatusBadRequest); got[call.field] != limit {
					t.Errorf("violations %v; want %s: %s", got, call.field, limit)
				}
			})
		}
	}
	t.Run("gRPC", func(t *testing.T) {
		_, err := platenv1.NewDesignServiceClient(srv.GRPC(t)).CreateDesignVersion(platentest.Bearer(t.Context(), acme.Token),
			&platenv1.CreateDesignVersionRequest{TemplateConfig: doc})
		st := status.Convert(err)
		if st.Code() != codes.InvalidArgument || !hasViolation(st, "template_config.meta.a", limit) {
			t.Errorf("%v %v", st.Code(), st.Details())
		}
	})
}

func hasViolation(st *status.Status, field, description string) bool {
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			for _, v := range br.FieldViolations {
				if v.Field == field && v.Description == description {
					return true
				}
			}
		}
	}
	return false
}

// TestAnEmbeddedDocumentCostsItsBytes: refusing the 8 MB design version
// costs the server what reading an 8 MB body costs, where decoding it took
// 378 MB; measured as what this process (the server) allocates.
func TestAnEmbeddedDocumentCostsItsBytes(t *testing.T) {
	srv := start(t, platentest.SQLite(), nil)
	acme := srv.Bootstrap(t, "acme", "acme-shop")
	body, _ := json.Marshal(map[string]any{"template_config": zerosDoc(4_000_000)})
	post := func() int {
		req, _ := http.NewRequest("POST", srv.BaseURL+"/api/v1/design-versions", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+acme.Token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	post() // the first request warms what every request shares
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code := post()
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("an 8 MB design version: %d, %d MB allocated", code, allocated>>20)
	if code != http.StatusBadRequest {
		t.Errorf("status %d, want 400", code)
	}
	if allocated > maxEmbeddedRefusal {
		t.Errorf("refusing it allocated %d MB, over %d MB", allocated>>20, maxEmbeddedRefusal>>20)
	}
}

// maxEmbeddedRefusal is what refusing an 8 MB body may allocate: its
// copies on the way through the gateway and gRPC, about ten of its size.
const maxEmbeddedRefusal = 100 << 20
