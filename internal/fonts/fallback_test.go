package fonts_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/poppler"
	"github.com/platen-print/platen/internal/testtools"
)

// droidFallback is a TrueType font with Chinese and Japanese, from
// Debian's fonts-droid-fallback.
const droidFallback = "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"

// TestTeamFallbackFonts: with no fallback fonts of the server's own, a
// name in Japanese fails its print naming the characters (never a blank);
// once the team adds a font with "fallback": true, the same design
// renders with that font embedded for those characters, and the Go font
// for the rest; another team's design still fails.
func TestTeamFallbackFonts(t *testing.T) {
	poppler.Need(t, "pdffonts")
	cjk, err := os.ReadFile(droidFallback)
	if err != nil {
		testtools.Missing(t, droidFallback+" is not there (Debian package fonts-droid-fallback; `make install-test-tools` installs it)")
	}
	doc := `{"width":90,"height":50,"layers":[{"type":"text","text":"Ada 山田","size":14,"x":5,"y":5}]}`
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.StartWith(t, b, func(c *config.Config) { c.FallbackFonts = []string{} })
		acme, other := srv.Bootstrap(t, "acme", "acme-shop"), srv.Bootstrap(t, "other", "other-shop")
		staff := srv.Staff(t, "grace@example.com")
		order := func(tenant platentest.Tenant, id string) map[string]any {
			t.Helper()
			body := platentest.OrderBody(tenant.StoreID, id, platentest.PrintFiles(), platentest.Design(doc))
			if r := srv.Do(t, "POST", "/api/v1/orders", tenant.Token, body); r.Status != http.StatusOK {
				t.Fatalf("order: %d %s", r.Status, r.Raw)
			}
			return srv.WaitPrint(t, tenant.Token, id+"-1")
		}

		const reason = `layers[0]: no font has the characters "山田" (U+5C71 U+7530); fonts tried: Go-Regular`
		if st := order(acme, "1001"); st["status"] != "processingfailed" || st["error"] != reason {
			t.Fatalf("without a fallback font: %v, want processingfailed with %q", st, reason)
		}

		body := upload(acme.TeamID, "Brand CJK", cjk)
		body["fallback"] = true
		r := srv.Do(t, "POST", "/api/v1/operator/fonts", staff.Token, body)
		if r.Status != http.StatusOK || r.Object(t)["fallback"] != true {
			t.Fatalf("upload: %d %s", r.Status, r.Raw)
		}
		st := order(acme, "1002")
		if st["status"] != "ready" {
			t.Fatalf("with the team's fallback font: %v", st)
		}
		_, pdf := platentest.Download(t, st["url"].(string))
		path := filepath.Join(t.TempDir(), "print.pdf")
		if err := os.WriteFile(path, pdf, 0o600); err != nil {
			t.Fatal(err)
		}
		fonts := poppler.Run(t, "pdffonts", path)
		if !strings.Contains(fonts, "+DroidSansFallback") || !strings.Contains(fonts, "+GoRegular") {
			t.Errorf("pdffonts lists\n%s\nwant the fallback font and the Go font", fonts)
		}
		if text := poppler.Run(t, "pdftotext", path, "-"); !strings.Contains(text, "Ada 山田") {
			t.Errorf("the PDF's text reads %q", text)
		}

		if st := order(other, "2001"); st["status"] != "processingfailed" || st["error"] != reason {
			t.Errorf("another team's print: %v", st)
		}
	})
}
