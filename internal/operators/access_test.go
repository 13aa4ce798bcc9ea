package operators_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/operators"
	"github.com/platen-print/platen/internal/platentest"
)

// TestEachTokenToItsAPI: an operator token (staff or a team's) reaches the
// operator service and not the client API; a client token the reverse;
// over REST and gRPC alike, on every backend. The operator service's
// methods answer UNIMPLEMENTED until they are built: reaching them is what
// is checked here.
func TestEachTokenToItsAPI(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		client := srv.Bootstrap(t, "acme", "acme-shop")
		staff, err := operators.Create(t.Context(), srv.DB().Operators(), "grace@example.com", "Grace", true, nil)
		if err != nil {
			t.Fatal(err)
		}
		member := srv.TeamOperator(t, "ada@example.com", client.TeamID)
		if _, err := operators.Create(t.Context(), srv.DB().Operators(), "lin@example.com", "", false, new(int)); err == nil || !strings.Contains(err.Error(), "team 0 not found") {
			t.Errorf("an operator of a team that does not exist: %v", err)
		}
		conn := srv.GRPC(t)
		ops, orders := platenv1.NewOperatorServiceClient(conn), platenv1.NewOrderServiceClient(conn)
		for _, tc := range []struct {
			name              string
			token             string
			operatorAPI, rest codes.Code
		}{
			{"staff", staff.Token, codes.OK, codes.PermissionDenied},
			{"team operator", member.Token, codes.PermissionDenied, codes.PermissionDenied}, // teams are staff's
			{"client", client.Token, codes.PermissionDenied, codes.OK},
		} {
			ctx := platentest.Bearer(context.Background(), tc.token)
			if _, err := ops.ListTeams(ctx, &platenv1.ListTeamsRequest{}); status.Code(err) != tc.operatorAPI {
				t.Errorf("%s: OperatorService.ListTeams: %v; want %s", tc.name, err, tc.operatorAPI)
			}
			if _, err := orders.ListOrders(ctx, &platenv1.ListOrdersRequest{}); status.Code(err) != tc.rest {
				t.Errorf("%s: OrderService.ListOrders: %v; want %s", tc.name, err, tc.rest)
			}
			wantREST := map[codes.Code]int{codes.PermissionDenied: http.StatusForbidden, codes.OK: http.StatusOK}
			if r := srv.Do(t, "GET", "/api/v1/operator/teams", tc.token, nil); r.Status != wantREST[tc.operatorAPI] {
				t.Errorf("%s: GET /api/v1/operator/teams: %d %s", tc.name, r.Status, r.Raw)
			}
			if r := srv.Do(t, "GET", "/api/v1/orders", tc.token, nil); r.Status != wantREST[tc.rest] {
				t.Errorf("%s: GET /api/v1/orders: %d %s", tc.name, r.Status, r.Raw)
			}
		}
	})
}
