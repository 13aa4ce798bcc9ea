package panel_test

import (
	"bytes"
	"image/png"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/platentest"
)

// TestFindingAnOrderAndItsPages: the Prints page finds a print by the
// start of its customer's e-mail, in another case; the print's page links
// its order, whose page shows the customer, the address and every print
// of the order (another team's is 404); the print's file says how many
// pages it holds; and each page of the design is shown with its trim and
// safe area drawn where the design and the team's press settings put
// them, its preview a PNG of the page with its bleed at the page's size.
func TestFindingAnOrderAndItsPages(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		other := srv.Bootstrap(t, "other", "other-shop")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
		stranger := srv.TeamOperator(t, "eve@example.com", other.TeamID)
		id, second := twoPageOrder(t, srv, acme)
		waitStatus(t, srv, member.Token, id, "ready")
		orderWith(t, srv, acme, "Web-8000", smallCard) // found by neither search below

		br := newBrowser(t, srv.BaseURL)
		br.signIn(member.Email, member.Password)
		for _, text := range []string{"grace.HOP", "web-7731", "Hopper"} {
			_, list := br.do("GET", "/operator/prints?query="+url.QueryEscape(text), nil)
			if !strings.Contains(list, `id="open-`+id+`"`) || !strings.Contains(list, `id="open-`+second+`"`) || strings.Contains(list, "Web-8000") {
				t.Errorf("searching %q does not list exactly the order's two prints:\n%s", text, list)
			}
		}

		_, page := br.do("GET", "/operator/prints/"+id, nil)
		if !strings.Contains(page, `href="/operator/prints/`+id+`/order"`) {
			t.Errorf("the print's page does not link its order:\n%s", page)
		}
		if !regexp.MustCompile(`File 1</a>: PDF, 2 pages, [0-9.]+ KB`).MatchString(page) {
			t.Errorf("the file's row does not say it holds 2 pages:\n%s", page)
		}
		// 50 × 80 mm with 2 mm of bleed: a 54 × 84 mm page, the trim 2 mm
		// in, the safe area the default 3 mm further.
		boxes := regexp.MustCompile(`<svg class="boxes" viewBox="0 0 54 84"[^>]*><rect class="trim" data-box="trim" x="2" y="2" width="50" height="80"/><rect class="safe" data-box="safe" x="5" y="5" width="44" height="74"/></svg>`)
		if n := len(boxes.FindAllString(page, -1)); n != 4 { // two pages, each at two sizes
			t.Errorf("%d pages with their trim and safe area drawn, want 2 pages at 2 sizes:\n%s", n, page)
		}
		for _, name := range []string{"<figcaption>front</figcaption>", "<figcaption>back</figcaption>"} {
			if !strings.Contains(page, name) {
				t.Errorf("no %s", name)
			}
		}
		resp, _ := br.do("GET", "/operator/prints/"+id+"/preview?page=1&size=page", nil)
		if resp.StatusCode != http.StatusFound {
			t.Fatalf("the back's preview: %d %q", resp.StatusCode, resp.Header.Get("X-Preview"))
		}
		img, data := platentest.Get(t, http.DefaultClient, resp.Header.Get("Location"))
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		if img.StatusCode != http.StatusOK || err != nil || cfg.Width != 153 || cfg.Height != 238 { // 54 × 84 mm at 72 dpi
			t.Errorf("the back's preview: %d, %v, %d × %d px, want 153 × 238", img.StatusCode, err, cfg.Width, cfg.Height)
		}
		for _, bad := range []string{"?page=x", "?page=-1", "?size=huge"} {
			if resp, _ := br.do("GET", "/operator/prints/"+id+"/preview"+bad, nil); resp.StatusCode != http.StatusBadRequest {
				t.Errorf("preview%s: %d, want 400", bad, resp.StatusCode)
			}
		}

		_, order := br.do("GET", "/operator/prints/"+id+"/order", nil)
		for _, want := range []string{"<title>Order Web-7731", "Grace Hopper", `href="mailto:Grace.Hopper@Example.com"`, "1 Navy Way",
			"20001 Arlington", `id="open-` + id + `"`, `id="open-` + second + `"`, ">Web-7731-2</a>"} {
			if !strings.Contains(order, want) {
				t.Errorf("the order's page lacks %q:\n%s", want, order)
			}
		}
		api := srv.Do(t, "GET", "/api/v1/operator/prints/"+second+"/order", member.Token, nil)
		got := api.Object(t)
		if api.Status != http.StatusOK || got["ecommerce_order_id"] != "Web-7731" || len(got["prints"].([]any)) != 2 ||
			got["customer"].(map[string]any)["surname"] != "Hopper" {
			t.Errorf("GET …/prints/{second}/order: %d %s", api.Status, api.Raw)
		}

		eve := newBrowser(t, srv.BaseURL)
		eve.signIn(stranger.Email, stranger.Password)
		if resp, _ := eve.do("GET", "/operator/prints/"+id+"/order", nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("another team's order page: %d, want 404", resp.StatusCode)
		}
		if api := srv.Do(t, "GET", "/api/v1/operator/prints/"+id+"/order", stranger.Token, nil); api.Status != http.StatusNotFound {
			t.Errorf("another team's order through the API: %d, want 404", api.Status)
		}
	})
}

// twoPageOrder creates tenant's order Web-7731 of Grace Hopper, shipped to
// Arlington: its first item a 50 × 80 mm card with 2 mm of bleed, front
// and back, two copies; its second a small card. It returns both items'
// uids.
func twoPageOrder(t *testing.T, srv *platentest.Server, tenant platentest.Tenant) (first, second string) {
	t.Helper()
	card := `{"version":1,"unit":"mm","width":50,"height":80,"bleed":2,"surfaces":[` +
		`{"name":"front","layers":[{"type":"rect","x":-2,"y":-2,"width":54,"height":84,"fill":"#2e7d32"},{"type":"text","text":"Grace","font":"Go-Regular","size":14,"x":6,"y":10,"width":38}]},` +
		`{"name":"back","layers":[{"type":"rect","x":5,"y":5,"width":40,"height":70,"fill":"#1565c0"}]}]}`
	r := srv.Do(t, "POST", "/api/v1/orders", tenant.Token, map[string]any{"store_id": tenant.StoreID, "ecommerce_order_id": "Web-7731",
		"ecommerce_order_number": "#7731", "create_print_files": true,
		"customer":  map[string]any{"email": "Grace.Hopper@Example.com", "name": "Grace", "surname": "Hopper"},
		"addresses": []map[string]any{{"type_id": "shipping", "address_1": "1 Navy Way", "post_code": "20001", "city": "Arlington", "country_code": "US"}},
		"items": []map[string]any{
			{"ecommerce_order_item_id": "Web-7731-1", "ecommerce_variant_id": "v", "quantity": 2, "template_config": url.QueryEscape(card), "thumbnails": []string{"https://example.com/t.png"}},
			{"ecommerce_order_item_id": "Web-7731-2", "ecommerce_variant_id": "v", "quantity": 1, "template_config": url.QueryEscape(smallCard), "thumbnails": []string{"https://example.com/t.png"}},
		}})
	if r.Status != http.StatusOK {
		t.Fatalf("order: %d %s", r.Status, r.Raw)
	}
	items := r.Object(t)["items"].([]any)
	return items[0].(map[string]any)["uid"].(string), items[1].(map[string]any)["uid"].(string)
}
