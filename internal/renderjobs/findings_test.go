package renderjobs_test

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/poppler"
)

// TestTheAPIAcceptsWhatPrints: through the public API, a raw JSON
// template_config prints its text as written ("1+1=2, 50% off", where a
// URL-decoding once printed "1 1=2"), and the documents the API once took
// and the print then failed or silently changed are a 400 naming the
// member: surfaces with layers, a width of 0, a text size of 0, a radius
// on a text layer, a dpi of 300.5, and line_height, which is now drawn.
func TestTheAPIAcceptsWhatPrints(t *testing.T) {
	poppler.Need(t, "pdftotext")
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		tenant := srv.Bootstrap(t, "acme", "shop-1")
		raw := `{"width":90,"height":50,"layers":[{"type":"text","text":"1+1=2, 50% off","size":14,"x":5,"y":5,"line_height":1.5}]}`
		it := platentest.OrderItem("raw-1", "")
		it["template_config"] = raw
		createOrder(t, srv, tenant.Token, platentest.OrderBody(tenant.StoreID, "raw", platentest.PrintFiles(), platentest.Items(it)))
		st := srv.WaitPrint(t, tenant.Token, "raw-1")
		if st["status"] != "ready" {
			t.Fatalf("print: %v", st)
		}
		_, pdf := platentest.Download(t, st["url"].(string))
		path := filepath.Join(t.TempDir(), "raw.pdf")
		if err := os.WriteFile(path, pdf, 0o600); err != nil {
			t.Fatal(err)
		}
		if text := poppler.Run(t, "pdftotext", path, "-"); !strings.Contains(text, "1+1=2, 50% off") {
			t.Errorf("the PDF's text reads %q", text)
		}

		for doc, member := range map[string]string{
			`{"width":50,"height":50,"layers":[],"surfaces":[{"layers":[]}]}`:                        "layers",
			`{"width":0,"height":50,"layers":[]}`:                                                    "width",
			`{"width":50,"height":50,"layers":[{"type":"text","text":"a","size":0}]}`:                "layers[0].size",
			`{"width":50,"height":50,"layers":[{"type":"text","text":"a","size":5,"radius":-1}]}`:    "layers[0].radius",
			`{"width":50,"height":50,"dpi":300.5,"layers":[]}`:                                       "dpi",
			`{"width":50,"height":50,"layers":[{"type":"rect","width":0,"height":5,"fill":"#000"}]}`: "layers[0].width",
		} {
			r := srv.Do(t, "POST", "/api/v1/orders", tenant.Token, platentest.OrderBody(tenant.StoreID, "bad", platentest.PrintFiles(), platentest.Design(doc)))
			if _, fields := platentest.ErrorBody(t, r, http.StatusBadRequest); !slices.Contains(fields, "items[0].template_config."+member) {
				t.Errorf("%s: fields %v, want items[0].template_config.%s", doc, fields, member)
			}
		}
	})
}
