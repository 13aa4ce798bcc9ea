package batches_test

import (
	"encoding/base64"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/image/font/gofont/gomono"

	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/poppler"
)

// TestABatchUsesItsTeamsFonts: a batch's sheets render the team's own
// font a design names, embedded as a subset; another team's batch of the
// same design, whose team has no such font, fails naming the item, the
// layer and the font.
func TestABatchUsesItsTeamsFonts(t *testing.T) {
	poppler.Need(t, "pdffonts")
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		f := setup(t, b)
		r := f.srv.Do(t, "POST", "/api/v1/operator/fonts", f.staffToken, map[string]any{
			"team_id": f.shop.TeamID, "name": "Brand Sans", "data": base64.StdEncoding.EncodeToString(gomono.TTF)})
		if r.Status != http.StatusOK {
			t.Fatalf("font: %d %s", r.Status, r.Raw)
		}
		branded := strings.Replace(card("#f2e8d5"), `"type":"text",`, `"type":"text","font":"Brand Sans",`, 1)

		items := f.order(t, f.shop, "1001", item("1001-1", 2, branded))
		r = f.srv.Do(t, "POST", "/api/v1/batch-orders", f.teamToken, map[string]any{"order_items": items, "print_templates": []string{f.templateUID}})
		if r.Status != http.StatusOK {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		done := f.wait(t, f.teamToken, r.Object(t)["uid"].(string))
		if done["status"] != "Ready" {
			t.Fatalf("done %v", done)
		}
		_, pdf := platentest.Download(t, done["files"].([]any)[0].(map[string]any)["url"].(string))
		path := filepath.Join(t.TempDir(), "sheet.pdf")
		if err := os.WriteFile(path, pdf, 0o600); err != nil {
			t.Fatal(err)
		}
		if list := poppler.Run(t, "pdffonts", path); !regexp.MustCompile(`(?m)^[A-Z]{6}\+GoMono\s+CID TrueType\s+Identity-H\s+yes\s+yes\s+yes\s`).MatchString(list) {
			t.Errorf("pdffonts of the sheet:\n%s", list)
		}

		otherToken := f.srv.TeamToken(t, f.otherTeam.TeamID)
		theirs := f.order(t, f.otherTeam, "2001", item("2001-1", 1, branded))
		r = f.srv.Do(t, "POST", "/api/v1/batch-orders", otherToken, map[string]any{"order_items": theirs, "print_templates": []string{f.otherTemplate}})
		if r.Status != http.StatusOK {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		failed := f.wait(t, otherToken, r.Object(t)["uid"].(string))
		if reason, _ := failed["error"].(string); failed["status"] != "Failed" ||
			!strings.HasPrefix(reason, `order_items[0]: layers[1]: unknown font "Brand Sans" (known: `) {
			t.Errorf("the other team's batch: %v", failed)
		}
	})
}
