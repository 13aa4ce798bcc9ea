package gateway

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc/metadata"

	"github.com/platen-print/platen/internal/httpstatus"
)

// Family B answers 201 on create: the handler sets x-http-code, and the
// gateway's forward-response option makes it the status line.
func TestForwardedHTTPStatus(t *testing.T) {
	cases := []struct {
		name   string
		header metadata.MD
		want   int
	}{
		{"201 from the handler", metadata.Pairs(httpstatus.Header, "201"), 201},
		{"no header keeps 200", metadata.MD{}, 200},
		{"garbage keeps 200", metadata.Pairs(httpstatus.Header, "lots"), 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := runtime.NewServerMetadataContext(context.Background(), runtime.ServerMetadata{HeaderMD: tc.header})
			rec := httptest.NewRecorder()
			if err := setHTTPStatus(ctx, rec, nil); err != nil {
				t.Fatal(err)
			}
			if rec.Code != tc.want {
				t.Errorf("status %d, want %d", rec.Code, tc.want)
			}
		})
	}
}

// A path or query parameter the gateway cannot read is a 400 naming it,
// as every validation error is, not grpc-gateway's text.
func TestParameterViolations(t *testing.T) {
	cases := []struct {
		message, field, description string
	}{
		{`parsing field "page_size": strconv.ParseInt: parsing "abc": invalid syntax`, "page_size", "must be an integer"},
		{`parsing field "page_size": strconv.ParseInt: parsing "99999999999": value out of range`, "page_size", "is out of range"},
		{`type mismatch, parameter: product_id, error: strconv.ParseInt: parsing "x": invalid syntax`, "product_id", "must be an integer"},
		{`parsing field "rotate_secret": strconv.ParseBool: parsing "maybe": invalid syntax`, "rotate_secret", "must be true or false"},
	}
	for _, tc := range cases {
		t.Run(tc.field, func(t *testing.T) {
			v, ok := readViolation(httptest.NewRequest("GET", "/", nil), tc.message)
			if !ok || v.Field != tc.field || v.Description != tc.description {
				t.Errorf("violation %+v, %v; want %s: %s", v, ok, tc.field, tc.description)
			}
		})
	}
	if v, ok := readViolation(httptest.NewRequest("GET", "/", nil), "order not found"); ok {
		t.Errorf("a message of no parameter gave %+v", v)
	}
}

// Routes are labelled by their documented path, whichever router served
// them.
func TestRouteLabel(t *testing.T) {
	for _, tc := range []struct{ gateway, mux, want string }{
		{"/v1/shop/orders/{order_ref=**}", "/", "/v1/shop/orders/{order_ref}"},
		{"/api/v1/orders/{order_uid}", "/", "/api/v1/orders/{order_uid}"},
		{"", "GET /healthz", "/healthz"},
		{"", "GET /api/v1/print-files/{item_uid}", "/api/v1/print-files/{item_uid}"},
		{"", "/files/{key...}", "/files/{key}"},
		{"", "/operator/", "/operator/"},
		{"", "/", "unmatched"},
		{"", "", "unmatched"},
	} {
		if got := routeLabel(tc.gateway, tc.mux); got != tc.want {
			t.Errorf("routeLabel(%q, %q) = %q, want %q", tc.gateway, tc.mux, got, tc.want)
		}
	}
}
