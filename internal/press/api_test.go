package press_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/iccprofile"
	"github.com/platen-print/platen/internal/pdfxtest"
	"github.com/platen-print/platen/internal/platentest"
)

// eventTimeout bounds the wait for a webhook: renders run in their own
// processes, under -race on two cores.
const eventTimeout = 90 * time.Second

func upload(teamID any, identifier string, data []byte) map[string]any {
	body := map[string]any{"identifier": identifier, "condition": "Test press on coated paper",
		"registry_name": "http://www.color.org", "data": base64.StdEncoding.EncodeToString(data)}
	if teamID != nil {
		body["team_id"] = teamID
	}
	return body
}

// TestOutputProfilesThroughTheOperatorAPI: a team's operator and staff add,
// list, read and delete output profiles within their rights; a profile
// that is not a CMYK output profile is refused naming data; a profile in
// use cannot be deleted; another team's is 404; a client token is 403;
// gRPC answers alike.
func TestOutputProfilesThroughTheOperatorAPI(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme, other := srv.Bootstrap(t, "acme", "acme-shop"), srv.Bootstrap(t, "other", "other-shop")
		staff := srv.Staff(t, "grace@example.com")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
		profile := platentest.CMYKProfile(t)

		created := srv.Do(t, "POST", "/api/v1/operator/output-profiles", member.Token, upload(nil, "TEST-PRESS-1", profile))
		if created.Status != http.StatusOK {
			t.Fatalf("create: %d %s", created.Status, created.Raw)
		}
		p := created.Object(t)
		uid, _ := p["uid"].(string)
		want := map[string]any{"team_id": float64(acme.TeamID), "identifier": "TEST-PRESS-1",
			"condition": "Test press on coated paper", "registry_name": "http://www.color.org",
			"description": "FOGRA39 coated (ISO 12647-2:2004/Amd 1), Test press 1 from FOGRA39L.ti3",
			"size_bytes":  float64(len(profile)), "sha256": hexSHA256(profile)}
		for k, v := range want {
			if p[k] != v {
				t.Errorf("created %s = %v, want %v", k, p[k], v)
			}
		}
		if _, ok := p["data"]; ok || uid == "" || p["created_at"] == nil {
			t.Errorf("created %s", created.Raw)
		}
		theirs := srv.Do(t, "POST", "/api/v1/operator/output-profiles", staff.Token, upload(other.TeamID, "THEIRS", profile))
		if theirs.Status != http.StatusOK {
			t.Fatalf("staff's create for another team: %d %s", theirs.Status, theirs.Raw)
		}
		theirUID := theirs.Object(t)["uid"].(string)

		for name, tc := range map[string]struct {
			token   string
			body    map[string]any
			status  int
			field   string
			message string
		}{
			"a display profile (sRGB)": {member.Token, upload(nil, "sRGB", iccprofile.SRGB), http.StatusBadRequest, "data",
				`data: must be a CMYK output ("prtr" class) ICC profile: the ICC profile's class is "mntr", want "prtr"`},
			"not a profile": {member.Token, upload(nil, "X", []byte("not an ICC profile at all, just text")), http.StatusBadRequest, "data",
				`data: must be a CMYK output ("prtr" class) ICC profile: not an ICC profile`},
			"a truncated profile": {member.Token, upload(nil, "X", profile[:len(profile)/2]), http.StatusBadRequest, "data",
				`data: must be a CMYK output ("prtr" class) ICC profile: the ICC profile is truncated`},
			"no data":              {member.Token, upload(nil, "X", nil), http.StatusBadRequest, "data", "data: is required"},
			"no identifier":        {member.Token, upload(nil, "", profile), http.StatusBadRequest, "identifier", "identifier: is required"},
			"staff without a team": {staff.Token, upload(nil, "X", profile), http.StatusBadRequest, "team_id", "team_id: is required for staff"},
			"an unknown team":      {staff.Token, upload(999999, "X", profile), http.StatusBadRequest, "team_id", "team_id: names no team"},
			"another team":         {member.Token, upload(other.TeamID, "X", profile), http.StatusForbidden, "team_id", ""},
			"a client token":       {acme.Token, upload(acme.TeamID, "X", profile), http.StatusForbidden, "", ""},
		} {
			r := srv.Do(t, "POST", "/api/v1/operator/output-profiles", tc.token, tc.body)
			msg, fields := platentest.ErrorBody(t, r, tc.status)
			if tc.field != "" && !slices.Contains(fields, tc.field) {
				t.Errorf("%s: fields %v; want %s", name, fields, tc.field)
			}
			if !strings.HasPrefix(msg, tc.message) {
				t.Errorf("%s: message %q; want it to begin %q", name, msg, tc.message)
			}
		}

		if r := srv.Do(t, "GET", "/api/v1/operator/output-profiles/"+uid, member.Token, nil); r.Status != http.StatusOK || r.Object(t)["sha256"] != want["sha256"] {
			t.Errorf("get: %d %s", r.Status, r.Raw)
		}
		platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/operator/output-profiles/"+theirUID, member.Token, nil), http.StatusNotFound)
		platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/operator/output-profiles/"+uid, acme.Token, nil), http.StatusForbidden)
		if n := len(srv.Do(t, "GET", "/api/v1/operator/output-profiles", staff.Token, nil).Object(t)["output_profiles"].([]any)); n != 2 {
			t.Errorf("staff list %d profiles; want 2", n)
		}
		mine := srv.Do(t, "GET", "/api/v1/operator/output-profiles", member.Token, nil).Object(t)["output_profiles"].([]any)
		if len(mine) != 1 || mine[0].(map[string]any)["uid"] != uid {
			t.Errorf("the team operator lists %v; want their team's one", mine)
		}

		client := platenv1.NewOperatorServiceClient(srv.GRPC(t))
		got, err := client.GetOutputProfile(platentest.Bearer(context.Background(), staff.Token), &platenv1.GetOutputProfileRequest{ProfileUid: uid})
		if err != nil || got.Identifier != "TEST-PRESS-1" {
			t.Errorf("gRPC get: %v %v", got, err)
		}
		_, err = client.CreateOutputProfile(platentest.Bearer(context.Background(), member.Token),
			&platenv1.CreateOutputProfileRequest{Identifier: "sRGB", Data: iccprofile.SRGB})
		if st := status.Convert(err); st.Code() != codes.InvalidArgument || !strings.HasPrefix(st.Message(), "data: must be a CMYK output") {
			t.Errorf("gRPC create of sRGB: %v", err)
		}

		// In use by the team's default: 409 naming it; free again, it goes.
		ps := srv.Do(t, "PUT", fmt.Sprintf("/api/v1/operator/teams/%d/press-settings", acme.TeamID), member.Token,
			map[string]any{"output_profile_id": uid})
		if ps.Status != http.StatusOK || ps.Object(t)["output_profile_id"] != uid {
			t.Fatalf("team default: %d %s", ps.Status, ps.Raw)
		}
		msg, _ := platentest.ErrorBody(t, srv.Do(t, "DELETE", "/api/v1/operator/output-profiles/"+uid, member.Token, nil), http.StatusConflict)
		if !strings.Contains(msg, "in use by the team's default press settings") {
			t.Errorf("delete of a profile in use: %q", msg)
		}
		srv.Do(t, "PUT", fmt.Sprintf("/api/v1/operator/teams/%d/press-settings", acme.TeamID), member.Token, map[string]any{"output_profile_id": nil})
		platentest.ErrorBody(t, srv.Do(t, "DELETE", "/api/v1/operator/output-profiles/"+theirUID, member.Token, nil), http.StatusNotFound)
		platentest.ErrorBody(t, srv.Do(t, "GET", fmt.Sprintf("/api/v1/operator/teams/%d/press-settings", other.TeamID), member.Token, nil), http.StatusForbidden)
		platentest.ErrorBody(t, srv.Do(t, "PUT", fmt.Sprintf("/api/v1/operator/teams/%d/press-settings", other.TeamID), member.Token,
			map[string]any{"cut_contour_spot": "Thru-cut"}), http.StatusForbidden)
		platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/operator/teams/999999/press-settings", staff.Token, nil), http.StatusNotFound)
		del := srv.Do(t, "DELETE", "/api/v1/operator/output-profiles/"+uid, member.Token, nil)
		if d := del.Object(t); del.Status != http.StatusOK || d["message"] != "Output profile successfully deleted" || d["profile_uid"] != uid {
			t.Errorf("delete: %d %s", del.Status, del.Raw)
		}
		platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/operator/output-profiles/"+uid, staff.Token, nil), http.StatusNotFound)
	})
}

// settled waits for the print events of the items ids, and returns them by
// ecommerce_order_item_id (Family A), order_external_id (Family B) or
// batch_uid.
func settled(t *testing.T, hooks *platentest.Receiver, ids ...string) map[string]map[string]any {
	t.Helper()
	got := map[string]map[string]any{}
	deadline := time.Now().Add(eventTimeout)
	for len(got) < len(ids) {
		d, err := hooks.Next(time.Until(deadline))
		if err != nil {
			t.Fatalf("events for %v after %v: %v", ids, eventTimeout, got)
		}
		e := d.Event()
		id, _ := e["ecommerce_order_item_id"].(string)
		if id == "" {
			id, _ = e["order_external_id"].(string)
		}
		if id == "" {
			id, _ = e["batch_uid"].(string)
		}
		if slices.Contains(ids, id) {
			got[id] = e
		}
	}
	return got
}

// lowResPNG is a data: URI of a 40 × 40 pixel PNG: 20 ppi over 50 mm.
func lowResPNG(t *testing.T) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 40, 40))
	for i := range img.Pix {
		img.Pix[i] = 0x80
	}
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
}

// card is an A6 card: a rectangle across the bleed and a line of text at
// textX mm from the left trim edge.
func card(textX float64) string {
	return fmt.Sprintf(`{"width":148,"height":105,"bleed":2,"layers":[`+
		`{"type":"rect","x":-2,"y":-2,"width":152,"height":109,"fill":"#f2e8d5"},`+
		`{"type":"text","text":"Press settings","size":12,"x":%g,"y":40,"width":80}]}`, textX)
}

func orderItem(id, variant, doc string) map[string]any {
	return map[string]any{"ecommerce_order_item_id": id, "ecommerce_variant_id": variant, "quantity": 1,
		"thumbnails": []string{"https://example.com/t.png"}, "template_config": url.QueryEscape(doc)}
}

// TestPressSettingsReachThePrints: a variant naming an output profile
// renders its items' PDFs for that condition (the output intent names it
// and embeds its profile), a variant without settings gets FOGRA39;
// min_effective_ppi and safe_margin_mm fail the prints that cross them,
// with the reason clients read; a shop print takes the team's default;
// the variant answers its settings, null when unset, and refuses a
// profile that is not its team's.
func TestPressSettingsReachThePrints(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.StartWith(t, b, func(c *config.Config) { c.AllowPrivateNetwork = true })
		acme, other := srv.Bootstrap(t, "acme", "acme-shop"), srv.Bootstrap(t, "other", "other-shop")
		staff := srv.Staff(t, "grace@example.com")
		team := srv.TeamToken(t, acme.TeamID)
		hooks := platentest.NewReceiver(t)
		if r := srv.Do(t, "PUT", "/api/v1/stores/"+acme.StoreID+"/webhook", team, map[string]any{"url": hooks.URL}); r.Status != http.StatusOK {
			t.Fatalf("webhook: %d %s", r.Status, r.Raw)
		}
		profile := platentest.CMYKProfile(t)
		r := srv.Do(t, "POST", "/api/v1/operator/output-profiles", staff.Token, upload(acme.TeamID, "TEST-PRESS-1", profile))
		if r.Status != http.StatusOK {
			t.Fatalf("profile: %d %s", r.Status, r.Raw)
		}
		uid := r.Object(t)["uid"].(string)
		theirs := srv.Do(t, "POST", "/api/v1/operator/output-profiles", staff.Token, upload(other.TeamID, "THEIRS", profile)).Object(t)["uid"]

		cat := srv.Do(t, "POST", "/api/v1/product-categories", team, map[string]any{"name": "Cards"})
		prod := srv.Do(t, "POST", "/api/v1/products", team, map[string]any{"category_id": cat.Object(t)["id"], "name": "Card",
			"order_column": 1, "active": true, "team_id": acme.TeamID})
		variant := func(evid string, settings map[string]any) map[string]any {
			t.Helper()
			body := map[string]any{"name": evid, "product_id": prod.Object(t)["id"], "country_id": 276, "ecommerce_variant_ids": []string{evid}}
			for k, v := range settings {
				body[k] = v
			}
			r := srv.Do(t, "POST", "/api/v1/product-variants", team, body)
			if r.Status != http.StatusOK {
				t.Fatalf("variant %s: %d %s", evid, r.Status, r.Raw)
			}
			return r.Object(t)
		}
		custom := variant("card-custom", map[string]any{"output_profile_id": uid, "cut_contour_spot": "Thru-cut"})
		plain := variant("card-plain", nil)
		strict := variant("card-strict", map[string]any{"min_effective_ppi": 150})
		margined := variant("card-margin", map[string]any{"safe_margin_mm": 8})

		// The client sees the settings on GET, null where unset.
		got := srv.Do(t, "GET", fmt.Sprintf("/api/v1/product-variants/%v", custom["id"]), team, nil).Object(t)
		for k, v := range map[string]any{"output_profile_id": uid, "min_effective_ppi": nil, "safe_margin_mm": nil, "cut_contour_spot": "Thru-cut",
			"allow_missing_glyphs": nil} {
			if got[k] != v {
				t.Errorf("variant GET %s = %v, want %v", k, got[k], v)
			}
		}
		for _, k := range []string{"output_profile_id", "min_effective_ppi", "safe_margin_mm", "cut_contour_spot", "allow_missing_glyphs"} {
			if v, ok := plain[k]; !ok || v != nil {
				t.Errorf("a variant without settings answers %s = %v, want null", k, v)
			}
		}
		if strict["min_effective_ppi"] != 150.0 || margined["safe_margin_mm"] != 8.0 {
			t.Errorf("limits answered: %v, %v", strict["min_effective_ppi"], margined["safe_margin_mm"])
		}
		for name, tc := range map[string]struct {
			body  map[string]any
			field string
		}{
			"another team's profile": {map[string]any{"output_profile_id": theirs}, "output_profile_id"},
			"an unknown profile":     {map[string]any{"output_profile_id": "no-such-profile"}, "output_profile_id"},
			"a ppi of 0":             {map[string]any{"min_effective_ppi": 0}, "min_effective_ppi"},
			"a negative margin":      {map[string]any{"safe_margin_mm": -1}, "safe_margin_mm"},
			"an empty spot":          {map[string]any{"cut_contour_spot": ""}, "cut_contour_spot"},
			"the All separation":     {map[string]any{"cut_contour_spot": "All"}, "cut_contour_spot"},
			"a spot with a comma":    {map[string]any{"cut_contour_spot": "Cut, Contour"}, "cut_contour_spot"},
		} {
			r := srv.Do(t, "PUT", fmt.Sprintf("/api/v1/product-variants/%v", plain["id"]), team, tc.body)
			if _, fields := platentest.ErrorBody(t, r, http.StatusBadRequest); !slices.Contains(fields, tc.field) {
				t.Errorf("%s: fields %v, want %s", name, fields, tc.field)
			}
		}

		body := map[string]any{"store_id": acme.StoreID, "ecommerce_order_id": "1001", "create_print_files": true, "items": []any{
			orderItem("1001-custom", "card-custom", card(15)), orderItem("1001-plain", "card-plain", card(15)),
			orderItem("1001-lowres", "card-strict", fmt.Sprintf(`{"width":148,"height":105,"layers":[`+
				`{"type":"image","src":%q,"x":20,"y":20,"width":50,"height":50}]}`, lowResPNG(t))),
			orderItem("1001-margin", "card-margin", card(4)),
			orderItem("1001-cut", "card-custom", `{"width":60,"height":60,"layers":[{"type":"cut","x":5,"y":5,"width":50,"height":50}]}`),
		}}
		if r := srv.Do(t, "POST", "/api/v1/orders", acme.Token, body); r.Status != http.StatusOK {
			t.Fatalf("order: %d %s", r.Status, r.Raw)
		}
		events := settled(t, hooks, "1001-custom", "1001-plain", "1001-lowres", "1001-margin", "1001-cut")
		for id, event := range map[string]string{"1001-custom": "order_item.print_file.ready", "1001-plain": "order_item.print_file.ready",
			"1001-lowres": "order_item.print_file.failed", "1001-margin": "order_item.print_file.failed"} {
			if events[id]["event"] != event {
				t.Errorf("%s: %v, want %s", id, events[id], event)
			}
		}

		_, pdf := platentest.Download(t, events["1001-custom"]["url"].(string))
		pdfxtest.ObjectsWith(t, pdf, profile, pdfxtest.Registered)
		if in := pdfxtest.OutputIntentOf(t, pdf); in.Identifier != "TEST-PRESS-1" || in.Condition != "Test press on coated paper" {
			t.Errorf("the custom variant's output intent names %q (%q)", in.Identifier, in.Condition)
		}
		_, pdf = platentest.Download(t, events["1001-plain"]["url"].(string))
		pdfxtest.Objects(t, pdf, iccprofile.FOGRA39)
		if in := pdfxtest.OutputIntentOf(t, pdf); in.Identifier != iccprofile.FOGRA39Identifier {
			t.Errorf("a variant without settings: output intent %q, want FOGRA39", in.Identifier)
		}

		// The variant's cut_contour_spot is the plate its cut lines go to.
		_, pdf = platentest.Download(t, events["1001-cut"]["url"].(string))
		path := filepath.Join(t.TempDir(), "cut.pdf")
		if err := os.WriteFile(path, pdf, 0o600); err != nil {
			t.Fatal(err)
		}
		plates := pdfxtest.Separate(t, path, 1, 72)
		if names := plates.Names(); !slices.Contains(names, "Thru-cut") || slices.Contains(names, "CutContour") || !plates.InkNear("Thru-cut", 5, 30, 0.5) {
			t.Errorf("the cut line's plates: %v; want it on Thru-cut", names)
		}

		for id, want := range map[string]string{
			"1001-lowres": "layers[0]: the 40×40 image is 20 ppi at its placed size, below the minimum of 150 ppi set for this product",
			"1001-margin": "layers[1]: its text comes within 8 mm of the trim edge, inside the safe margin: the cut may clip it (the margin set for this product)",
		} {
			st := srv.Do(t, "GET", "/api/v1/order-items/"+id+"/print", acme.Token, nil).Object(t)
			if st["status"] != "processingfailed" || st["error"] != want || st["url"] != nil {
				t.Errorf("%s: %v; want processingfailed with %q", id, st, want)
			}
		}

		// The effective settings, as a client reads them: the variant's,
		// then (below) the team's default where it sets none.
		effective := func(evid string) map[string]any {
			t.Helper()
			r := srv.Do(t, "GET", "/api/v1/print-settings?order_item_uid="+itemUID(t, srv, acme.Token, evid), acme.Token, nil)
			if r.Status != http.StatusOK {
				t.Fatalf("print settings: %d %s", r.Status, r.Raw)
			}
			return r.Object(t)
		}
		for id, want := range map[string]map[string]any{
			"1001-custom": {"output_profile_id": uid, "min_effective_ppi": nil, "safe_margin_mm": nil, "cut_contour_spot": "Thru-cut", "allow_missing_glyphs": nil},
			"1001-plain":  {"output_profile_id": nil, "min_effective_ppi": nil, "safe_margin_mm": nil, "cut_contour_spot": "CutContour", "allow_missing_glyphs": nil},
		} {
			got := effective(id)
			for k, v := range want {
				if got[k] != v {
					t.Errorf("print settings of %s: %s = %v, want %v", id, k, got[k], v)
				}
			}
		}

		// Family B: no variant, so the team's default.
		ps := srv.Do(t, "PUT", fmt.Sprintf("/api/v1/operator/teams/%d/press-settings", acme.TeamID), staff.Token,
			map[string]any{"output_profile_id": uid, "safe_margin_mm": 2.5})
		if ps.Status != http.StatusOK {
			t.Fatalf("team default: %d %s", ps.Status, ps.Raw)
		}
		wantDefault := map[string]any{"team_id": float64(acme.TeamID), "output_profile_id": uid, "min_effective_ppi": nil,
			"safe_margin_mm": 2.5, "cut_contour_spot": nil, "allow_missing_glyphs": nil}
		if d := srv.Do(t, "GET", fmt.Sprintf("/api/v1/operator/teams/%d/press-settings", acme.TeamID), staff.Token, nil).Object(t); !sameJSON(d, wantDefault) {
			t.Errorf("team default: %v, want %v", d, wantDefault)
		}
		platentest.ErrorBody(t, srv.Do(t, "GET", fmt.Sprintf("/api/v1/operator/teams/%d/press-settings", acme.TeamID), acme.Token, nil), http.StatusForbidden)
		dv := map[string]any{"design_version_id": "card-v1", "template_config": url.QueryEscape(card(15)), "thumbnails": []string{"https://example.com/t.png"}}
		if r := srv.Do(t, "POST", "/api/v1/design-versions", team, dv); r.Status != http.StatusOK {
			t.Fatalf("design version: %d %s", r.Status, r.Raw)
		}
		r = srv.Do(t, "POST", "/v1/shop/orders", acme.Token, map[string]any{"external_id": "SO-1", "lines": []any{map[string]any{"design_version_id": "card-v1", "quantity": 1}}})
		if r.Status != http.StatusCreated {
			t.Fatalf("shop order: %d %s", r.Status, r.Raw)
		}
		if got := effective("1001-custom"); got["output_profile_id"] != uid || got["safe_margin_mm"] != 2.5 || got["cut_contour_spot"] != "Thru-cut" {
			t.Errorf("the custom variant over the team's default: %v", got)
		}
		shop := settled(t, hooks, "SO-1")["SO-1"]
		if shop["status"] != "ready" {
			t.Fatalf("shop print: %v", shop)
		}
		_, pdf = platentest.Download(t, shop["files"].([]any)[0].(map[string]any)["url"].(string))
		if in := pdfxtest.OutputIntentOf(t, pdf); in.Identifier != "TEST-PRESS-1" || !bytes.Equal(in.Profile, profile) {
			t.Errorf("the shop print's output intent names %q; want the team's default", in.Identifier)
		}

		// In use: the profile cannot go while the variant and the default name it.
		msg, _ := platentest.ErrorBody(t, srv.Do(t, "DELETE", "/api/v1/operator/output-profiles/"+uid, staff.Token, nil), http.StatusConflict)
		if want := fmt.Sprintf("output profile %s is in use by the team's default press settings; product variants %v", uid, custom["id"]); !strings.HasPrefix(msg, want) {
			t.Errorf("delete of a profile in use: %q; want it to begin %q", msg, want)
		}
	})
}

func hexSHA256(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// itemUID is the uid of the order item ecommerceID, from its order.
func itemUID(t *testing.T, srv *platentest.Server, token, ecommerceID string) string {
	t.Helper()
	order := srv.Do(t, "GET", "/api/v1/orders?store_id=acme-shop", token, nil).Object(t)
	for _, o := range order["orders"].([]any) {
		for _, it := range o.(map[string]any)["items"].([]any) {
			if it := it.(map[string]any); it["ecommerce_order_item_id"] == ecommerceID {
				return it["uid"].(string)
			}
		}
	}
	t.Fatalf("no item %s", ecommerceID)
	return ""
}

// sameJSON reports whether a and b encode to the same JSON value.
func sameJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}
