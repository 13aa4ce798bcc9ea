package batches_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/platentest"
)

// TestOperatorsCreateAndReadBatchesOverREST: staff make a batch for the
// team they name (and must name one), a team's operator for their own
// team only; the checks and messages are BatchService's; a batch is read
// by staff and its team's operator, 404 to another team's, and the team's
// own token reads it too; client tokens are kept off both methods.
func TestOperatorsCreateAndReadBatchesOverREST(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		f := setup(t, b)
		member := f.srv.TeamOperator(t, "ada@example.com", f.shop.TeamID)
		theirs := f.srv.TeamOperator(t, "lin@example.com", f.otherTeam.TeamID)
		items := f.order(t, f.shop, "1001", item("1001-1", 1, card("#ff0000")), item("1001-2", 1, card("#00ff00")))
		outlet := f.order(t, f.outlet, "2001", item("2001-1", 1, card("#0000ff")))
		theirItems := f.order(t, f.otherTeam, "9001", item("9001-1", 1, card("#000000")))
		team := f.shop.TeamID
		body := func(teamID *int, items, tmpls []string) map[string]any {
			m := map[string]any{"order_items": items, "print_templates": tmpls}
			if teamID != nil {
				m["team_id"] = *teamID
			}
			return m
		}
		other := f.otherTeam.TeamID

		for name, tc := range map[string]struct {
			token  string
			body   map[string]any
			status int
			field  string
		}{
			"staff naming no team":         {f.staffToken, body(nil, items, []string{f.templateUID}), 400, "team_id"},
			"a member naming another team": {member.Token, body(&other, items, []string{f.templateUID}), 403, "team_id"},
			"a client token":               {f.teamToken, body(&team, items, []string{f.templateUID}), 403, ""},
		} {
			t.Run(name, func(t *testing.T) {
				r := f.srv.Do(t, "POST", "/api/v1/operator/batch-orders", tc.token, tc.body)
				_, fields := platentest.ErrorBody(t, r, tc.status)
				if tc.field != "" && !slices.Contains(fields, tc.field) {
					t.Errorf("fields %v, want %s", fields, tc.field)
				}
			})
		}

		// A refused batch answers what BatchService answers the team's token.
		for name, bad := range map[string]struct {
			items, tmpls []string
		}{
			"an item twice":           {[]string{items[0], items[1], items[0]}, []string{f.templateUID}},
			"another team's item":     {[]string{items[0], theirItems[0]}, []string{f.templateUID}},
			"another team's template": {items, []string{f.otherTemplate}},
			"no templates":            {items, nil},
		} {
			t.Run(name, func(t *testing.T) {
				want := f.srv.Do(t, "POST", "/api/v1/batch-orders", f.teamToken, body(nil, bad.items, bad.tmpls))
				for who, r := range map[string]*platentest.Response{
					"staff":    f.srv.Do(t, "POST", "/api/v1/operator/batch-orders", f.staffToken, body(&team, bad.items, bad.tmpls)),
					"a member": f.srv.Do(t, "POST", "/api/v1/operator/batch-orders", member.Token, body(nil, bad.items, bad.tmpls)),
				} {
					if r.Status != want.Status || string(r.Raw) != string(want.Raw) || r.Status/100 != 4 {
						t.Errorf("%s: %d %s, want BatchService's %d %s", who, r.Status, r.Raw, want.Status, want.Raw)
					}
				}
			})
		}
		if n := countBatches(t, f); n != 0 {
			t.Fatalf("%d batches after refused requests", n)
		}

		// Staff batch items of two stores of the team; its member one.
		r := f.srv.Do(t, "POST", "/api/v1/operator/batch-orders", f.staffToken, body(&team, append([]string{items[0]}, outlet...), []string{f.templateUID}))
		if r.Status != http.StatusOK || r.Object(t)["status"] != "Batching" {
			t.Fatalf("staff's batch: %d %s", r.Status, r.Raw)
		}
		staffBatch := r.Object(t)["uid"].(string)
		r = f.srv.Do(t, "POST", "/api/v1/operator/batch-orders", member.Token, body(&team, []string{items[1]}, []string{f.templateUID}))
		if r.Status != http.StatusOK {
			t.Fatalf("a member's batch: %d %s", r.Status, r.Raw)
		}
		memberBatch := r.Object(t)["uid"].(string)

		for _, uid := range []string{staffBatch, memberBatch} {
			done := f.wait(t, f.teamToken, uid) // the team's own token reads it: it is the team's
			if done["status"] != "Ready" {
				t.Fatalf("batch %s: %v", uid, done)
			}
			for who, want := range map[string]struct {
				token  string
				status int
			}{"staff": {f.staffToken, 200}, "a member": {member.Token, 200}, "another team's operator": {theirs.Token, 404}, "a client token": {f.teamToken, 403}} {
				r := f.srv.Do(t, "GET", "/api/v1/operator/batch-orders/"+uid, want.token, nil)
				if want.status != http.StatusOK {
					message, _ := platentest.ErrorBody(t, r, want.status)
					if strings.Contains(message, "acme") {
						t.Errorf("%s learns of the batch: %s", who, message)
					}
					continue
				}
				got := r.Object(t)
				file := got["files"].([]any)[0].(map[string]any)
				if r.Status != http.StatusOK || got["status"] != "Ready" || file["url"] == nil || file["pages"] != 1.0 {
					t.Errorf("%s reads %s: %d %s", who, uid, r.Status, r.Raw)
				}
			}
		}
		if r := f.srv.Do(t, "GET", "/api/v1/operator/batch-orders/no-such-batch", f.staffToken, nil); r.Status != http.StatusNotFound {
			t.Errorf("a batch that does not exist: %d %s", r.Status, r.Raw)
		}
	})
}

// TestOperatorsBatchOverGRPC: the same two methods over gRPC, with the
// same codes.
func TestOperatorsBatchOverGRPC(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		f := setup(t, b)
		member := f.srv.TeamOperator(t, "ada@example.com", f.shop.TeamID)
		theirs := f.srv.TeamOperator(t, "lin@example.com", f.otherTeam.TeamID)
		items := f.order(t, f.shop, "1001", item("1001-1", 2, card("#ff0000")))
		client := platenv1.NewOperatorServiceClient(f.srv.GRPC(t))
		as := func(token string) context.Context { return platentest.Bearer(t.Context(), token) }
		team, other := int32(f.shop.TeamID), int32(f.otherTeam.TeamID) //nolint:gosec // small test ids
		req := func(teamID *int32) *platenv1.OperatorServiceCreateBatchOrderRequest {
			return &platenv1.OperatorServiceCreateBatchOrderRequest{TeamId: teamID, OrderItems: items, PrintTemplates: []string{f.templateUID}}
		}

		for name, tc := range map[string]struct {
			token string
			req   *platenv1.OperatorServiceCreateBatchOrderRequest
			code  codes.Code
		}{
			"staff naming no team":         {f.staffToken, req(nil), codes.InvalidArgument},
			"a member naming another team": {member.Token, req(&other), codes.PermissionDenied},
			"a client token":               {f.teamToken, req(&team), codes.PermissionDenied},
			"a repeated item": {f.staffToken, &platenv1.OperatorServiceCreateBatchOrderRequest{TeamId: &team,
				OrderItems: []string{items[0], items[0]}, PrintTemplates: []string{f.templateUID}}, codes.InvalidArgument},
		} {
			_, err := client.CreateBatchOrder(as(tc.token), tc.req)
			if status.Code(err) != tc.code {
				t.Errorf("%s: %v, want %v", name, err, tc.code)
			}
		}

		created, err := client.CreateBatchOrder(as(f.staffToken), req(&team))
		if err != nil || created.Status != "Batching" {
			t.Fatalf("staff's batch: %v %v", created, err)
		}
		f.wait(t, f.teamToken, created.Uid)
		got, err := client.GetBatchOrder(as(member.Token), &platenv1.GetBatchOrderRequest{BatchUid: created.Uid})
		if err != nil || got.Status != "Ready" || len(got.Files) != 1 || got.Files[0].Url == nil || got.Files[0].Pages != 1 {
			t.Fatalf("the member reads it: %v %v", got, err)
		}
		for who, tc := range map[string]struct {
			token string
			code  codes.Code
		}{"another team's operator": {theirs.Token, codes.NotFound}, "a client token": {f.teamToken, codes.PermissionDenied}} {
			if _, err := client.GetBatchOrder(as(tc.token), &platenv1.GetBatchOrderRequest{BatchUid: created.Uid}); status.Code(err) != tc.code {
				t.Errorf("%s: %v, want %v", who, err, tc.code)
			}
		}
	})
}
