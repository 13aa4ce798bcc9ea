package templates_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/platentest"
)

// variant creates a category, a product and a variant of the tenant's team
// through the client API and returns the variant's integer id.
func variant(t *testing.T, srv *platentest.Server, tenant platentest.Tenant, name string) int {
	t.Helper()
	token := srv.TeamToken(t, tenant.TeamID)
	cat := srv.Do(t, "POST", "/api/v1/product-categories", token, map[string]any{"name": "Cards " + name})
	prod := srv.Do(t, "POST", "/api/v1/products", token, map[string]any{"category_id": cat.Object(t)["id"], "name": "Card " + name,
		"order_column": 1, "active": true, "team_id": tenant.TeamID})
	v := srv.Do(t, "POST", "/api/v1/product-variants", token, map[string]any{"name": name, "product_id": prod.Object(t)["id"], "country_id": 276})
	if v.Status != http.StatusOK {
		t.Fatalf("variant: %d %s", v.Status, v.Raw)
	}
	return int(v.Object(t)["id"].(float64))
}

func sra3(teamID any, variants ...int) map[string]any {
	body := map[string]any{"name": "SRA3 A6 ×8", "sheet_width_mm": 320, "sheet_height_mm": 450,
		"margin_top_mm": 5, "margin_right_mm": 5, "margin_bottom_mm": 5, "margin_left_mm": 5, "gap_mm": 6, "slot_bleed_mm": 3,
		"grid": map[string]any{"columns": 2, "rows": 4, "slot_width_mm": 148, "slot_height_mm": 105}, "crop_marks": true, "variant_ids": variants}
	if teamID != nil {
		body["team_id"] = teamID
	}
	return body
}

// TestPrintTemplatesThroughTheOperatorAPI: staff and a team's operator
// create, read, list, update, assign and delete templates over REST, each
// within their rights; every rule is a field violation; gRPC answers alike.
func TestPrintTemplatesThroughTheOperatorAPI(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme, other := srv.Bootstrap(t, "acme", "acme-shop"), srv.Bootstrap(t, "other", "other-shop")
		cards, mugs, foreign := variant(t, srv, acme, "A6"), variant(t, srv, acme, "mug"), variant(t, srv, other, "theirs")
		staff := srv.Staff(t, "grace@example.com")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)

		created := srv.Do(t, "POST", "/api/v1/operator/print-templates", staff.Token, sra3(acme.TeamID, cards))
		if created.Status != http.StatusOK {
			t.Fatalf("create: %d %s", created.Status, created.Raw)
		}
		tpl := created.Object(t)
		uid := tpl["uid"].(string)
		if tpl["team_id"] != float64(acme.TeamID) || tpl["slot_bleed_mm"] != 3.0 || tpl["crop_marks"] != true ||
			fmt.Sprint(tpl["variant_ids"]) != fmt.Sprint([]any{float64(cards)}) || tpl["grid"].(map[string]any)["rows"] != 4.0 {
			t.Errorf("created %s", created.Raw)
		}

		for name, tc := range map[string]struct {
			token  string
			body   map[string]any
			status int
			field  string
		}{
			"staff without a team":        {staff.Token, sra3(nil), http.StatusBadRequest, "team_id"},
			"another team's variant":      {staff.Token, sra3(acme.TeamID, foreign), http.StatusBadRequest, "variant_ids[0]"},
			"a grid that does not fit":    {member.Token, func() map[string]any { b := sra3(nil); b["gap_mm"] = 20; return b }(), http.StatusBadRequest, "grid.columns"},
			"an operator of another team": {member.Token, sra3(other.TeamID), http.StatusForbidden, "team_id"},
			"a client token":              {acme.Token, sra3(acme.TeamID), http.StatusForbidden, ""},
		} {
			r := srv.Do(t, "POST", "/api/v1/operator/print-templates", tc.token, tc.body)
			_, fields := platentest.ErrorBody(t, r, tc.status)
			if tc.field != "" && !slices.Contains(fields, tc.field) {
				t.Errorf("%s: fields %v; want %s", name, fields, tc.field)
			}
		}
		own := srv.Do(t, "POST", "/api/v1/operator/print-templates", member.Token, sra3(nil, mugs))
		if own.Status != http.StatusOK || own.Object(t)["team_id"] != float64(acme.TeamID) {
			t.Fatalf("a team operator's own template: %d %s", own.Status, own.Raw)
		}
		theirs := srv.Do(t, "POST", "/api/v1/operator/print-templates", staff.Token, sra3(other.TeamID, foreign)).Object(t)["uid"].(string)

		// Visibility: another team's template is 404 to a team operator.
		if r := srv.Do(t, "GET", "/api/v1/operator/print-templates/"+theirs, member.Token, nil); r.Status != http.StatusNotFound {
			t.Errorf("another team's template: %d %s", r.Status, r.Raw)
		}
		if n := len(srv.Do(t, "GET", "/api/v1/operator/print-templates", staff.Token, nil).Object(t)["print_templates"].([]any)); n != 3 {
			t.Errorf("staff list %d templates; want 3", n)
		}
		if n := len(srv.Do(t, "GET", "/api/v1/operator/print-templates", member.Token, nil).Object(t)["print_templates"].([]any)); n != 2 {
			t.Errorf("the team operator lists %d templates; want their team's 2", n)
		}
		byVariant := srv.Do(t, "GET", fmt.Sprintf("/api/v1/operator/print-templates?variant_id=%d", cards), member.Token, nil).Object(t)["print_templates"].([]any)
		if len(byVariant) != 1 || byVariant[0].(map[string]any)["uid"] != uid {
			t.Errorf("templates of variant %d: %v", cards, byVariant)
		}

		// Update: another grid (on every backend), then explicit slots
		// replace the grid; the rules still hold.
		regrid := srv.Do(t, "PUT", "/api/v1/operator/print-templates/"+uid, member.Token, map[string]any{"grid": map[string]any{"columns": 2, "rows": 3}})
		if g, _ := regrid.Object(t)["grid"].(map[string]any); regrid.Status != http.StatusOK || g["rows"] != 3.0 || g["slot_width_mm"] != 0.0 {
			t.Errorf("another grid: %d %s", regrid.Status, regrid.Raw)
		}
		put := srv.Do(t, "PUT", "/api/v1/operator/print-templates/"+uid, member.Token, map[string]any{
			"name": "Two cards", "slot_bleed_mm": 0, "slots": []map[string]any{{"x_mm": 10, "y_mm": 10, "width_mm": 148, "height_mm": 105}, {"x_mm": 10, "y_mm": 120, "width_mm": 148, "height_mm": 105}}})
		if p := put.Object(t); put.Status != http.StatusOK || p["grid"] != nil || len(p["slots"].([]any)) != 2 || p["name"] != "Two cards" {
			t.Errorf("update: %d %s", put.Status, put.Raw)
		}
		bad := srv.Do(t, "PUT", "/api/v1/operator/print-templates/"+uid, member.Token, map[string]any{"slots": []map[string]any{{"x_mm": 10, "y_mm": 10, "width_mm": 148, "height_mm": 105}, {"x_mm": 20, "y_mm": 20, "width_mm": 148, "height_mm": 105}}})
		if _, fields := platentest.ErrorBody(t, bad, http.StatusBadRequest); !slices.Contains(fields, "slots[1]") {
			t.Errorf("overlapping slots: fields %v", fields)
		}

		// Assign: add and remove variants of the team only.
		assigned := srv.Do(t, "POST", "/api/v1/operator/print-templates/"+uid+"/assign", member.Token, map[string]any{"add_variant_ids": []int{mugs}, "remove_variant_ids": []int{cards}})
		if fmt.Sprint(assigned.Object(t)["variant_ids"]) != fmt.Sprint([]any{float64(mugs)}) {
			t.Errorf("assign: %s", assigned.Raw)
		}
		r := srv.Do(t, "POST", "/api/v1/operator/print-templates/"+uid+"/assign", staff.Token, map[string]any{"add_variant_ids": []int{foreign}})
		if _, fields := platentest.ErrorBody(t, r, http.StatusBadRequest); !slices.Contains(fields, "add_variant_ids[0]") {
			t.Errorf("assigning another team's variant: fields %v", fields)
		}

		// gRPC, as grpcurl would: the same template, and 404 across teams.
		client := platenv1.NewOperatorServiceClient(srv.GRPC(t))
		got, err := client.GetPrintTemplate(platentest.Bearer(context.Background(), staff.Token), &platenv1.GetPrintTemplateRequest{TemplateUid: uid})
		if err != nil || got.Name != "Two cards" {
			t.Errorf("gRPC get: %v %v", got, err)
		}
		if _, err := client.GetPrintTemplate(platentest.Bearer(context.Background(), member.Token), &platenv1.GetPrintTemplateRequest{TemplateUid: theirs}); status.Code(err) != codes.NotFound {
			t.Errorf("gRPC get of another team's: %v", err)
		}

		del := srv.Do(t, "DELETE", "/api/v1/operator/print-templates/"+uid, member.Token, nil)
		if d := del.Object(t); del.Status != http.StatusOK || d["message"] != "Print template successfully deleted" || d["template_uid"] != uid {
			t.Errorf("delete: %d %s", del.Status, del.Raw)
		}
		if r := srv.Do(t, "GET", "/api/v1/operator/print-templates/"+uid, staff.Token, nil); r.Status != http.StatusNotFound {
			t.Errorf("after delete: %d", r.Status)
		}
	})
}

// TestTheVariantsATemplateMayServe: the operator API lists a team's
// variants with their products, for assigning templates: staff name the
// team, a team's operator lists their own and no other.
func TestTheVariantsATemplateMayServe(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme, other := srv.Bootstrap(t, "acme", "acme-shop"), srv.Bootstrap(t, "other", "other-shop")
		cards, mugs := variant(t, srv, acme, "A6"), variant(t, srv, acme, "mug")
		variant(t, srv, other, "theirs")
		staff := srv.Staff(t, "grace@example.com")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
		for _, token := range []string{staff.Token, member.Token} {
			path := fmt.Sprintf("/api/v1/operator/product-variants?team_id=%d", acme.TeamID)
			if token == member.Token {
				path = "/api/v1/operator/product-variants"
			}
			r := srv.Do(t, "GET", path, token, nil)
			body := r.Object(t)
			variants, products := body["product_variants"].([]any), body["products"].([]any)
			if r.Status != http.StatusOK || len(variants) != 2 || len(products) != 2 ||
				variants[0].(map[string]any)["id"] != float64(mugs) || variants[1].(map[string]any)["id"] != float64(cards) {
				t.Fatalf("%s: %d %s", path, r.Status, r.Raw)
			}
			if p := products[0].(map[string]any); p["name"] != "Card mug" || p["id"] != variants[0].(map[string]any)["product_id"] {
				t.Errorf("the first variant's product: %v", p)
			}
		}
		page := srv.Do(t, "GET", fmt.Sprintf("/api/v1/operator/product-variants?team_id=%d&page_size=1", acme.TeamID), staff.Token, nil).Object(t)
		if len(page["product_variants"].([]any)) != 1 || len(page["products"].([]any)) != 1 || page["next_page_token"] == "" {
			t.Errorf("a page of one: %v", page)
		}
		if _, fields := platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/operator/product-variants", staff.Token, nil), http.StatusBadRequest); !slices.Contains(fields, "team_id") {
			t.Errorf("staff without a team: fields %v", fields)
		}
		platentest.ErrorBody(t, srv.Do(t, "GET", fmt.Sprintf("/api/v1/operator/product-variants?team_id=%d", other.TeamID), member.Token, nil), http.StatusForbidden)
		platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/operator/product-variants", acme.Token, nil), http.StatusForbidden)
	})
}
