package fonts_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"golang.org/x/image/font/gofont/gomono"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/poppler"
)

func hexSHA256(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func upload(teamID any, name string, data []byte) map[string]any {
	body := map[string]any{"name": name, "data": base64.StdEncoding.EncodeToString(data)}
	if teamID != nil {
		body["team_id"] = teamID
	}
	return body
}

// TestFontsThroughTheOperatorAPI: staff and a team's operator add, list,
// read and delete fonts, each within their rights; a font that cannot be
// read or whose licence forbids embedding is refused naming data; a name
// in use is 409; another team's font is 404; a client token is 403; gRPC
// answers alike.
func TestFontsThroughTheOperatorAPI(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme, other := srv.Bootstrap(t, "acme", "acme-shop"), srv.Bootstrap(t, "other", "other-shop")
		staff := srv.Staff(t, "grace@example.com")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)

		created := srv.Do(t, "POST", "/api/v1/operator/fonts", member.Token, upload(nil, "Brand Sans", gomono.TTF))
		if created.Status != http.StatusOK {
			t.Fatalf("create: %d %s", created.Status, created.Raw)
		}
		f := created.Object(t)
		uid, _ := f["uid"].(string)
		want := map[string]any{"team_id": float64(acme.TeamID), "name": "Brand Sans", "family": "Go Mono", "style": "Regular",
			"postscript_name": "GoMono", "format": "ttf", "size_bytes": float64(len(gomono.TTF)),
			"sha256": hexSHA256(gomono.TTF), "embedding": "installable"}
		for k, v := range want {
			if f[k] != v {
				t.Errorf("created %s = %v, want %v", k, f[k], v)
			}
		}
		if _, ok := f["data"]; ok || uid == "" || f["created_at"] == nil {
			t.Errorf("created %s", created.Raw)
		}
		theirs := srv.Do(t, "POST", "/api/v1/operator/fonts", staff.Token, upload(other.TeamID, "Brand Sans", gomono.TTF))
		if theirs.Status != http.StatusOK {
			t.Fatalf("another team's font of the same name: %d %s", theirs.Status, theirs.Raw)
		}
		theirUID := theirs.Object(t)["uid"].(string)

		restricted := platentest.FontWithFsType(t, gomono.TTF, 0x0002)
		for name, tc := range map[string]struct {
			token   string
			body    map[string]any
			status  int
			field   string
			message string
		}{
			"a restricted licence": {member.Token, upload(nil, "Secret Sans", restricted), http.StatusBadRequest, "data",
				"data: the font's licence forbids embedding it in documents (OS/2 fsType 0x0002: restricted license embedding)"},
			"not a font": {member.Token, upload(nil, "Notes", []byte("just some text, not a font")), http.StatusBadRequest, "data",
				"data: is not a TTF or OTF font (it does not start with an OpenType signature)"},
			"a corrupt font": {member.Token, upload(nil, "Half Mono", gomono.TTF[:len(gomono.TTF)/2]), http.StatusBadRequest, "data",
				"data: the font cannot be read: "},
			"no data":              {member.Token, upload(nil, "Empty", nil), http.StatusBadRequest, "data", "data: is required"},
			"a name in use":        {member.Token, upload(nil, "Brand Sans", gomono.TTF), http.StatusConflict, "name", `team ` + fmt.Sprint(acme.TeamID) + ` has a font named "Brand Sans" already`},
			"a built-in name":      {member.Token, upload(nil, "Go-Bold", gomono.TTF), http.StatusBadRequest, "name", `name: "Go-Bold" is a built-in font`},
			"no name":              {member.Token, upload(nil, "", gomono.TTF), http.StatusBadRequest, "name", "name: is required"},
			"a name with spaces":   {member.Token, upload(nil, " Mono", gomono.TTF), http.StatusBadRequest, "name", "name: must not begin or end with spaces"},
			"staff without a team": {staff.Token, upload(nil, "Mono", gomono.TTF), http.StatusBadRequest, "team_id", "team_id: is required for staff"},
			"an unknown team":      {staff.Token, upload(999999, "Mono", gomono.TTF), http.StatusBadRequest, "team_id", "team_id: names no team"},
			"another team":         {member.Token, upload(other.TeamID, "Mono", gomono.TTF), http.StatusForbidden, "team_id", ""},
			"a client token":       {acme.Token, upload(acme.TeamID, "Mono", gomono.TTF), http.StatusForbidden, "", ""},
		} {
			r := srv.Do(t, "POST", "/api/v1/operator/fonts", tc.token, tc.body)
			msg, fields := platentest.ErrorBody(t, r, tc.status)
			if tc.field != "" && !slices.Contains(fields, tc.field) {
				t.Errorf("%s: fields %v; want %s", name, fields, tc.field)
			}
			if len(msg) < len(tc.message) || msg[:len(tc.message)] != tc.message {
				t.Errorf("%s: message %q; want it to begin %q", name, msg, tc.message)
			}
		}

		// Reading: a team's operator sees their team's fonts only.
		if r := srv.Do(t, "GET", "/api/v1/operator/fonts/"+uid, member.Token, nil); r.Status != http.StatusOK || r.Object(t)["sha256"] != want["sha256"] {
			t.Errorf("get: %d %s", r.Status, r.Raw)
		}
		if r := srv.Do(t, "GET", "/api/v1/operator/fonts/"+theirUID, member.Token, nil); r.Status != http.StatusNotFound {
			t.Errorf("another team's font: %d %s", r.Status, r.Raw)
		}
		platentest.ErrorBody(t, srv.Do(t, "GET", "/api/v1/operator/fonts/"+uid, acme.Token, nil), http.StatusForbidden)
		if n := len(srv.Do(t, "GET", "/api/v1/operator/fonts", staff.Token, nil).Object(t)["fonts"].([]any)); n != 2 {
			t.Errorf("staff list %d fonts; want 2", n)
		}
		mine := srv.Do(t, "GET", "/api/v1/operator/fonts", member.Token, nil).Object(t)["fonts"].([]any)
		if len(mine) != 1 || mine[0].(map[string]any)["uid"] != uid {
			t.Errorf("the team operator lists %v; want their team's one", mine)
		}
		page := srv.Do(t, "GET", "/api/v1/operator/fonts?page_size=1", staff.Token, nil).Object(t)
		if len(page["fonts"].([]any)) != 1 || page["next_page_token"] == "" {
			t.Errorf("a page of one: %v", page)
		}
		next := srv.Do(t, "GET", "/api/v1/operator/fonts?page_size=1&page_token="+url.QueryEscape(page["next_page_token"].(string)), staff.Token, nil).Object(t)
		if l := next["fonts"].([]any); len(l) != 1 || l[0].(map[string]any)["uid"] == page["fonts"].([]any)[0].(map[string]any)["uid"] || next["next_page_token"] != "" {
			t.Errorf("the second page: %v", next)
		}
		platentest.ErrorBody(t, srv.Do(t, "GET", fmt.Sprintf("/api/v1/operator/fonts?team_id=%d", other.TeamID), member.Token, nil), http.StatusForbidden)

		// gRPC, as grpcurl would.
		client := platenv1.NewOperatorServiceClient(srv.GRPC(t))
		got, err := client.GetFont(platentest.Bearer(context.Background(), staff.Token), &platenv1.GetFontRequest{FontUid: uid})
		if err != nil || got.Name != "Brand Sans" || got.PostscriptName != "GoMono" {
			t.Errorf("gRPC get: %v %v", got, err)
		}
		if _, err := client.GetFont(platentest.Bearer(context.Background(), member.Token), &platenv1.GetFontRequest{FontUid: theirUID}); status.Code(err) != codes.NotFound {
			t.Errorf("gRPC get of another team's: %v", err)
		}
		_, err = client.CreateFont(platentest.Bearer(context.Background(), member.Token), &platenv1.CreateFontRequest{Name: "Secret Sans", Data: restricted})
		if st := status.Convert(err); st.Code() != codes.InvalidArgument ||
			st.Message() != "data: the font's licence forbids embedding it in documents (OS/2 fsType 0x0002: restricted license embedding)" {
			t.Errorf("gRPC create of a restricted font: %v", err)
		}

		// Delete: another team's is 404; then the font is gone.
		if r := srv.Do(t, "DELETE", "/api/v1/operator/fonts/"+theirUID, member.Token, nil); r.Status != http.StatusNotFound {
			t.Errorf("delete of another team's font: %d %s", r.Status, r.Raw)
		}
		del := srv.Do(t, "DELETE", "/api/v1/operator/fonts/"+uid, member.Token, nil)
		if d := del.Object(t); del.Status != http.StatusOK || d["message"] != "Font successfully deleted" || d["font_uid"] != uid {
			t.Errorf("delete: %d %s", del.Status, del.Raw)
		}
		if r := srv.Do(t, "GET", "/api/v1/operator/fonts/"+uid, staff.Token, nil); r.Status != http.StatusNotFound {
			t.Errorf("after delete: %d", r.Status)
		}
		if r := srv.Do(t, "DELETE", "/api/v1/operator/fonts/"+uid, staff.Token, nil); r.Status != http.StatusNotFound {
			t.Errorf("delete again: %d", r.Status)
		}
		// The name is free again; names are case-sensitive, as a design's
		// font field is matched.
		for _, name := range []string{"Brand Sans", "brand sans"} {
			if r := srv.Do(t, "POST", "/api/v1/operator/fonts", member.Token, upload(nil, name, gomono.TTF)); r.Status != http.StatusOK {
				t.Errorf("%q after delete: %d %s", name, r.Status, r.Raw)
			}
		}
	})
}

// brandDoc is a card whose only text is in the font "Brand Sans".
const brandDoc = `{"width":105,"height":148,"bleed":2,"surfaces":[{"name":"front","layers":[` +
	`{"type":"rect","x":0,"y":0,"width":105,"height":148,"fill":"#f2e8d5"},` +
	`{"type":"text","text":"Happy birthday, Ada","font":"Brand Sans","size":14,"x":10,"y":100,"width":85}]}]}`

// checkEmbedded checks with pdffonts that the PDF's one font is the
// PostScript name given, embedded and subset.
func checkEmbedded(t *testing.T, what string, pdf []byte, postscript string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "print.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	list := poppler.Run(t, "pdffonts", path)
	// name, type, encoding, emb, sub, uni, object ID
	line := regexp.MustCompile(`(?m)^[A-Z]{6}\+` + regexp.QuoteMeta(postscript) + `\s+CID TrueType\s+Identity-H\s+yes\s+yes\s+yes\s`)
	if !line.MatchString(list) || regexp.MustCompile(`(?m)^\S+\s+.*\sno\s`).MatchString(list) {
		t.Errorf("%s: pdffonts lists\n%s\nwant %s embedded and subset, and nothing else", what, list, postscript)
	}
}

// TestDesignsUseTheirTeamsFonts: a design naming a team's font renders,
// in a Family A item and a Family B print, with the font embedded as a
// subset; the same design for another team, which has no such font, fails
// naming the layer and the font; a deleted font fails new prints alike.
func TestDesignsUseTheirTeamsFonts(t *testing.T) {
	poppler.Need(t, "pdffonts")
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme, other := srv.Bootstrap(t, "acme", "acme-shop"), srv.Bootstrap(t, "other", "other-shop")
		staff := srv.Staff(t, "grace@example.com")
		r := srv.Do(t, "POST", "/api/v1/operator/fonts", staff.Token, upload(acme.TeamID, "Brand Sans", gomono.TTF))
		if r.Status != http.StatusOK {
			t.Fatalf("upload: %d %s", r.Status, r.Raw)
		}
		font := r.Object(t)

		for _, tenant := range []platentest.Tenant{acme, other} {
			body := platentest.OrderBody(tenant.StoreID, "1001", platentest.PrintFiles(), platentest.Design(brandDoc))
			if r := srv.Do(t, "POST", "/api/v1/orders", tenant.Token, body); r.Status != http.StatusOK {
				t.Fatalf("order: %d %s", r.Status, r.Raw)
			}
		}
		st := srv.WaitPrint(t, acme.Token, "1001-1")
		if st["status"] != "ready" {
			t.Fatalf("acme's print: %v", st)
		}
		_, pdf := platentest.Download(t, st["url"].(string))
		checkEmbedded(t, "Family A", pdf, font["postscript_name"].(string))

		theirs := srv.WaitPrint(t, other.Token, "1001-1")
		if reason, _ := theirs["error"].(string); theirs["status"] != "processingfailed" ||
			!regexp.MustCompile(`^surfaces\[0\]\.layers\[1\]: unknown font "Brand Sans" \(known: Go-Bold, .*\)$`).MatchString(reason) {
			t.Errorf("the other team's print: %v", theirs)
		}

		// Family B: a design version naming the font.
		dv := map[string]any{"design_version_id": "brand-card", "template_config": url.QueryEscape(brandDoc), "thumbnails": []string{"https://example.com/t.png"}}
		if r := srv.Do(t, "POST", "/api/v1/design-versions", acme.Token, dv); r.Status != http.StatusOK {
			t.Fatalf("design version: %d %s", r.Status, r.Raw)
		}
		r = srv.Do(t, "POST", "/v1/shop/orders", acme.Token, map[string]any{"external_id": "SO-1", "lines": []any{map[string]any{"design_version_id": "brand-card", "quantity": 1}}})
		if r.Status != http.StatusCreated {
			t.Fatalf("shop order: %d %s", r.Status, r.Raw)
		}
		ref := r.Object(t)["data"].(map[string]any)["reference_number"].(string)
		order := srv.WaitShopOrder(t, acme.Token, ref)
		p := order["lines"].([]any)[0].(map[string]any)["prints"].([]any)[0].(map[string]any)
		if p["status"] != "ready" {
			t.Fatalf("shop print: %v", p)
		}
		_, shopPDF := platentest.Download(t, p["files"].([]any)[0].(map[string]any)["url"].(string))
		checkEmbedded(t, "Family B", shopPDF, "GoMono")

		// Deleted: the next print of the design fails as unknown; the file
		// already rendered keeps its font.
		if r := srv.Do(t, "DELETE", "/api/v1/operator/fonts/"+font["uid"].(string), staff.Token, nil); r.Status != http.StatusOK {
			t.Fatalf("delete: %d %s", r.Status, r.Raw)
		}
		body := platentest.OrderBody(acme.StoreID, "1002", platentest.PrintFiles(), platentest.Design(brandDoc))
		if r := srv.Do(t, "POST", "/api/v1/orders", acme.Token, body); r.Status != http.StatusOK {
			t.Fatalf("order: %d %s", r.Status, r.Raw)
		}
		if after := srv.WaitPrint(t, acme.Token, "1002-1"); after["status"] != "processingfailed" {
			t.Errorf("a print after the font's delete: %v", after)
		}
		_, again := platentest.Download(t, srv.WaitPrint(t, acme.Token, "1001-1")["url"].(string))
		checkEmbedded(t, "the earlier file", again, "GoMono")
	})
}
