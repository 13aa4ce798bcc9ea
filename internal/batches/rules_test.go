package batches_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/platentest"
)

// TestEveryBatchRule: each rule of a batch answers its status and names
// the field; nothing is created by a refused request; another team's or
// store's batch is 404; operator and client tokens each keep to their API.
func TestEveryBatchRule(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		f := setup(t, b)
		mugVariant := f.variant(t, f.shop, "mug")
		mugsOnly := f.template(t, f.shop.TeamID, mugVariant)
		unused := f.template(t, f.shop.TeamID, f.variantID)
		shopItems := f.order(t, f.shop, "1001", item("1001-1", 1, card("#ff0000")),
			item("1001-2", 1, `{"width":300,"height":300,"layers":[]}`),
			map[string]any{"ecommerce_order_item_id": "1001-3", "ecommerce_variant_id": "unknown", "quantity": 1,
				"template_config": card("#00ff00"), "thumbnails": []string{"https://example.com/t.png"}})
		outletItems := f.order(t, f.outlet, "2001", item("2001-1", 1, card("#0000ff")))
		theirItems := f.order(t, f.otherTeam, "9001", item("9001-1", 1, card("#000000")))
		ok, large, unknownVariant, outlet := shopItems[0], shopItems[1], shopItems[2], outletItems[0]
		many := make([]string, 5001)
		for i := range many {
			many[i] = fmt.Sprintf("item-%d", i)
		}

		for name, tc := range map[string]struct {
			token      string
			items      []string
			templates  []string
			status     int
			field      string // a field violation, or the start of a 404's message
			notFoundIs string
		}{
			"no items or templates":       {f.teamToken, nil, nil, 400, "order_items", ""},
			"no templates":                {f.teamToken, []string{ok}, []string{}, 400, "print_templates", ""},
			"an item twice":               {f.teamToken, []string{ok, outlet, ok}, []string{f.templateUID}, 400, "order_items[2]", ""},
			"a template twice":            {f.teamToken, []string{ok}, []string{f.templateUID, f.templateUID}, 400, "print_templates[1]", ""},
			"an empty uid":                {f.teamToken, []string{ok, ""}, []string{f.templateUID}, 400, "order_items[1]", ""},
			"5001 items":                  {f.teamToken, many, []string{f.templateUID}, 400, "order_items", ""},
			"another team's item":         {f.teamToken, []string{ok, theirItems[0]}, []string{f.templateUID}, 404, "", "order_items[1]"},
			"an item that does not exist": {f.teamToken, []string{"no-such-item"}, []string{f.templateUID}, 404, "", "order_items[0]"},
			"another team's template":     {f.teamToken, []string{ok}, []string{f.otherTemplate}, 404, "", "print_templates[0]"},
			"another store's item":        {f.shop.Token, []string{ok, outlet}, []string{f.templateUID}, 404, "", "order_items[1]"},
			"no listed template assigned": {f.teamToken, []string{ok}, []string{mugsOnly}, 400, "order_items[0]", ""},
			"an item too large":           {f.teamToken, []string{ok, large}, []string{f.templateUID}, 400, "order_items[1]", ""},
			"an item without a variant":   {f.teamToken, []string{unknownVariant}, []string{f.templateUID}, 400, "order_items[0]", ""},
			"a template placing nothing":  {f.teamToken, []string{ok}, []string{f.templateUID, unused}, 400, "print_templates[1]", ""},
			"an operator token":           {f.staffToken, []string{ok}, []string{f.templateUID}, 403, "", ""},
		} {
			t.Run(name, func(t *testing.T) {
				r := f.srv.Do(t, "POST", "/api/v1/batch-orders", tc.token, map[string]any{"order_items": tc.items, "print_templates": tc.templates})
				if r.Status != tc.status {
					t.Fatalf("%d %s, want %d", r.Status, r.Raw, tc.status)
				}
				message, fields := platentest.ErrorBody(t, r, tc.status)
				if tc.field != "" && !slices.Contains(fields, tc.field) {
					t.Errorf("fields %v, want %s; %s", fields, tc.field, message)
				}
				if tc.notFoundIs != "" && !strings.HasPrefix(message, tc.notFoundIs+": ") {
					t.Errorf("message %q, want it to name %s", message, tc.notFoundIs)
				}
			})
		}
		if n := countBatches(t, f); n != 0 {
			t.Errorf("%d batches after refused requests", n)
		}

		// Allowed: a store-bound token with its own store's items; the
		// other store's token, another team's and an operator's do not see
		// the batch.
		r := f.srv.Do(t, "POST", "/api/v1/batch-orders", f.shop.Token, map[string]any{"order_items": []string{ok}, "print_templates": []string{f.templateUID}})
		if r.Status != http.StatusOK {
			t.Fatalf("a store's own items: %d %s", r.Status, r.Raw)
		}
		uid := r.Object(t)["uid"].(string)
		for who, token := range map[string]string{"the store": f.shop.Token, "the team": f.teamToken} {
			if r := f.srv.Do(t, "GET", "/api/v1/batch-orders/"+uid, token, nil); r.Status != http.StatusOK {
				t.Errorf("%s reads its batch: %d %s", who, r.Status, r.Raw)
			}
		}
		for who, want := range map[string]struct {
			token  string
			status int
		}{"the other store": {f.outlet.Token, 404}, "another team": {f.otherTeam.Token, 404}, "an operator": {f.staffToken, 403}} {
			r := f.srv.Do(t, "GET", "/api/v1/batch-orders/"+uid, want.token, nil)
			platentest.ErrorBody(t, r, want.status)
			if want.status == 404 && strings.Contains(string(r.Raw), "acme") {
				t.Errorf("%s learns of the batch: %s", who, r.Raw)
			}
		}
		f.wait(t, f.shop.Token, uid)
	})
}

// countBatches counts batch orders in the database.
func countBatches(t *testing.T, f *fixture) int {
	t.Helper()
	var n int
	if err := f.srv.DB().JobPool().QueryRowContext(context.Background(), "SELECT count(*) FROM batch_orders").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestBatchesOverGRPC: BatchService answers over gRPC with the same token
// and rules: a batch made with grpcurl is read with a Go client, a refused
// one names the item, an operator token is PERMISSION_DENIED.
func TestBatchesOverGRPC(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		f := setup(t, b)
		items := f.order(t, f.shop, "1001", item("1001-1", 2, card("#ff0000")))
		body, _ := json.Marshal(map[string]any{"order_items": items, "print_templates": []string{f.templateUID}})
		out, stderr, err := platentest.Grpcurl(t, "-plaintext", "-H", "authorization: Bearer "+f.teamToken, "-d", string(body),
			f.srv.GRPCAddr(), "platen.v1.BatchService/CreateBatchOrder")
		var created map[string]any
		if err != nil || json.Unmarshal([]byte(out), &created) != nil || created["status"] != "Batching" {
			t.Fatalf("grpcurl create: %v %s %s", err, out, stderr)
		}
		uid := created["uid"].(string)
		f.wait(t, f.teamToken, uid)
		client := platenv1.NewBatchServiceClient(f.srv.GRPC(t))
		ctx := platentest.Bearer(t.Context(), f.teamToken)
		got, err := client.GetBatchOrder(ctx, &platenv1.GetBatchOrderRequest{BatchUid: uid})
		if err != nil || got.Status != "Ready" || len(got.Files) != 1 || got.Files[0].Pages != 1 || got.Files[0].Url == nil {
			t.Fatalf("get: %v %v", got, err)
		}
		_, err = client.CreateBatchOrder(ctx, &platenv1.CreateBatchOrderRequest{OrderItems: []string{items[0], items[0]}, PrintTemplates: []string{f.templateUID}})
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "order_items[1]") {
			t.Errorf("a repeated item: %v", err)
		}
		_, err = client.GetBatchOrder(platentest.Bearer(t.Context(), f.staffToken), &platenv1.GetBatchOrderRequest{BatchUid: uid})
		if status.Code(err) != codes.PermissionDenied {
			t.Errorf("an operator token: %v", err)
		}
	})
}

// TestOperatorsListBatches: staff list every team's batches, a team's
// operator their team's, newest first, by status; a bad status is named.
func TestOperatorsListBatches(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		f := setup(t, b)
		items := f.order(t, f.shop, "1001", item("1001-1", 1, card("#ff0000")), item("1001-2", 1, card("#00ff00")))
		var uids []string
		for _, it := range items {
			r := f.srv.Do(t, "POST", "/api/v1/batch-orders", f.teamToken, map[string]any{"order_items": []string{it}, "print_templates": []string{f.templateUID}})
			if r.Status != http.StatusOK {
				t.Fatalf("batch: %d %s", r.Status, r.Raw)
			}
			uids = append(uids, r.Object(t)["uid"].(string))
			f.wait(t, f.teamToken, uids[len(uids)-1])
		}
		theirs := f.srv.TeamOperator(t, "lin@example.com", f.otherTeam.TeamID)
		list := func(token, query string) []string {
			t.Helper()
			r := f.srv.Do(t, "GET", "/api/v1/operator/batch-orders"+query, token, nil)
			if r.Status != http.StatusOK {
				t.Fatalf("list%s: %d %s", query, r.Status, r.Raw)
			}
			var got []string
			for _, b := range r.Object(t)["batch_orders"].([]any) {
				got = append(got, b.(map[string]any)["uid"].(string))
			}
			return got
		}
		newestFirst := []string{uids[1], uids[0]}
		if got := list(f.staffToken, "?status=Ready"); !slices.Equal(got, newestFirst) {
			t.Errorf("staff: %v, want %v", got, newestFirst)
		}
		if got := list(f.staffToken, "?page_size=1"); !slices.Equal(got, newestFirst[:1]) {
			t.Errorf("a page of one: %v", got)
		}
		if got := list(f.staffToken, "?status=Failed"); len(got) != 0 {
			t.Errorf("failed batches: %v", got)
		}
		if got := list(theirs.Token, ""); len(got) != 0 {
			t.Errorf("another team's operator sees %v", got)
		}
		_, fields := platentest.ErrorBody(t, f.srv.Do(t, "GET", "/api/v1/operator/batch-orders?status=done", f.staffToken, nil), http.StatusBadRequest)
		if !slices.Equal(fields, []string{"status"}) {
			t.Errorf("a bad status: %v", fields)
		}
	})
}
