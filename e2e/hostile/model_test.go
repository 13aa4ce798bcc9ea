package hostile

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/platentest"
)

// TestNewMembersAreBoundedAtTheDoor: the design model's groups, paths,
// spans, gradients and text members are bounded in the one parser, so a
// document that would make a render's work unbounded is a 400 naming the
// member, and creates nothing.
func TestNewMembersAreBoundedAtTheDoor(t *testing.T) {
	nested := strings.Repeat(`{"type":"group","layers":[`, 9) + strings.Repeat(`]}`, 9)
	rect := `{"type":"rect","width":1,"height":1,"fill":"#000"}`
	group := `{"type":"group","layers":[` + strings.TrimSuffix(strings.Repeat(rect+",", 300), ",") + `]}`
	bigPath := `{"type":"path","fill":"#000","d":"M 0 0` + strings.Repeat(" L 1 1", 60_000) + `"}`
	path := `{"type":"path","fill":"#000","d":"M 0 0` + strings.Repeat(" L 1 1", 40_000) + `"}`
	stops := strings.TrimSuffix(strings.Repeat(`[0.5,"#000"],`, 40), ",")
	spans := strings.TrimSuffix(strings.Repeat(`{"text":"a"},`, 600), ",")
	cases := []struct{ name, layers, member string }{
		{"groups nested 9 deep", nested, "layers[0]" + strings.Repeat(".layers[0]", 8)},
		{"600 layers in two groups", group + "," + group, "layers[1].layers"},
		{"a path of 360 KB", bigPath, "layers[0].d"},
		{"paths of 2.1 MB in all", strings.TrimSuffix(strings.Repeat(path+",", 9), ","), "layers[8].d"},
		{"40 gradient stops", `{"type":"rect","width":1,"height":1,"fill":{"linear":{"stops":[` + stops + `]}}}`, "layers[0].fill.linear.stops"},
		{"600 spans", `{"type":"text","size":5,"spans":[` + spans + `]}`, "layers[0].spans"},
		{"a group scaled 1e6", `{"type":"group","scale":1e6,"layers":[]}`, "layers[0].scale"},
		{"letters spaced 1e9", `{"type":"text","size":5,"text":"a","letter_spacing":1e9}`, "layers[0].letter_spacing"},
		{"1e9 lines", `{"type":"text","size":5,"text":"a","width":5,"fit":"shrink","max_lines":1e9}`, "layers[0].max_lines"},
		{"a view box of 1e300", `{"type":"path","fill":"#000","d":"M0 0 L1 1","view_box":[0,0,1e300,1],"width":1,"height":1}`, "layers[0].view_box"},
		{"a dash of a thousand parts", `{"type":"line","x2":5,"stroke":"#000","stroke_width":1,"dash":[` + strings.TrimSuffix(strings.Repeat("1,", 1000), ",") + `]}`, "layers[0].dash"},
	}
	platentest.EachBackendInTurn(t, func(t *testing.T, b platentest.Backend) {
		srv := start(t, b, nil)
		tenant := srv.Bootstrap(t, "attacker", "shop-a")
		for _, c := range cases {
			doc := `{"width":100,"height":100,"layers":[` + c.layers + `]}`
			r := srv.Do(t, "POST", "/api/v1/orders", tenant.Token, platentest.OrderBody(tenant.StoreID, "evil", platentest.PrintFiles(), platentest.Design(doc)))
			if _, fields := platentest.ErrorBody(t, r, http.StatusBadRequest); !slices.Contains(fields, "items[0].template_config."+c.member) {
				t.Errorf("%s: fields %v; want items[0].template_config.%s", c.name, fields, c.member)
			}
		}
		if r := srv.Do(t, "GET", "/api/v1/orders?store_id="+tenant.StoreID, tenant.Token, nil); len(r.Object(t)["orders"].([]any)) != 0 {
			t.Errorf("a refused order was stored: %s", r.Raw)
		}
	})
}

// TestHostileSVGsFailTheirPrintOnly: SVG images built to exhaust a
// render (over 10 MB, a <use> bomb, a script) fail their own prints with
// the reason, while the server's memory and /healthz hold and another
// team's order is ready meanwhile.
func TestHostileSVGsFailTheirPrintOnly(t *testing.T) {
	bomb := `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><defs><path id="a" d="M0 0 L1 1"/>`
	for i := 1; i <= 10; i++ {
		bomb += fmt.Sprintf(`<g id="%c">%s</g>`, 'a'+i, strings.Repeat(fmt.Sprintf(`<use href="#%c"/>`, 'a'+i-1), 10))
	}
	bomb += `</defs><use href="#k"/></svg>`
	files := map[string]string{
		"/big.svg":    `<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0` + strings.Repeat(" L1 1", 2_200_000) + `"/></svg>`,
		"/bomb.svg":   bomb,
		"/script.svg": `<svg xmlns="http://www.w3.org/2000/svg"><script>fetch("http://169.254.169.254/")</script></svg>`,
	}
	images := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/svg+xml")
		_, _ = w.Write([]byte(files[r.URL.Path]))
	}))
	t.Cleanup(images.Close)
	platentest.EachBackendInTurn(t, func(t *testing.T, b platentest.Backend) {
		srv := start(t, b, nil)
		attacker := srv.Bootstrap(t, "attacker", "shop-a")
		other := srv.Bootstrap(t, "other", "shop-b")
		c := watch(t, srv)
		want := map[string]string{"big": "more than the 10485760 (10 MiB) a logo may have", "bomb": "<use>", "script": "<script>"}
		uids := map[string]string{}
		for name := range want {
			doc := fmt.Sprintf(`{"width":100,"height":100,"layers":[{"type":"image","src":%q,"width":100,"height":100}]}`, images.URL+"/"+name+".svg")
			r := srv.Do(t, "POST", "/api/v1/orders", attacker.Token, platentest.OrderBody(attacker.StoreID, name, platentest.PrintFiles(), platentest.Design(doc)))
			if r.Status != http.StatusOK {
				t.Fatalf("%s: %d %s", name, r.Status, r.Raw)
			}
			uids[name] = r.Object(t)["uid"].(string)
		}
		referenceOrderReady(t, srv, other, "ref-1")
		for name, reason := range want {
			srv.WaitPrintWithin(t, otherTeamsReady, attacker.Token, name+"-1", "processingfailed")
			if got := itemError(t, srv, attacker.Token, uids[name]); !strings.HasPrefix(got, "layers[0]: the SVG image: ") || !strings.Contains(got, reason) {
				t.Errorf("%s: reason %q; want the layer, the SVG and %q", name, got, reason)
			}
		}
		c.check(t)
	})
}
