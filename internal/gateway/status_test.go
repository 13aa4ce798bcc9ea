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
