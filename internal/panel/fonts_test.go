package panel_test

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"net/http"
	"testing"

	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"

	"github.com/platen-print/platen/internal/platentest"
)

// TestPreviewsUseTheirTeamsFonts: two teams each name their own font
// "Brand Sans", and order the same design: each print's preview is drawn
// with its own team's font, not with the one of the team whose preview
// of that design was made first.
func TestPreviewsUseTheirTeamsFonts(t *testing.T) {
	srv := platentest.Start(t, platentest.SQLite())
	staff := srv.Staff(t, "grace@example.com")
	doc := `{"width":100,"height":30,"layers":[{"type":"text","text":"WWW iii","font":"Brand Sans","size":40,"x":2,"y":2,"width":96}]}`
	var previews [][]byte
	for i, font := range [][]byte{gomono.TTF, goregular.TTF} {
		tenant := srv.Bootstrap(t, []string{"acme", "other"}[i], []string{"acme-shop", "other-shop"}[i])
		if r := srv.Do(t, "POST", "/api/v1/operator/fonts", staff.Token, map[string]any{
			"team_id": tenant.TeamID, "name": "Brand Sans", "data": base64.StdEncoding.EncodeToString(font)}); r.Status != http.StatusOK {
			t.Fatalf("font: %d %s", r.Status, r.Raw)
		}
		print := orderWith(t, srv, tenant, "100"+string(rune('1'+i)), doc)
		waitStatus(t, srv, staff.Token, print, "ready")
		br := newBrowser(t, srv.BaseURL)
		br.signIn("grace@example.com", staff.Password)
		resp, _ := br.do("GET", "/operator/prints/"+print+"/preview", nil)
		if resp.StatusCode != http.StatusFound {
			t.Fatalf("preview: %d", resp.StatusCode)
		}
		img, data := platentest.Get(t, http.DefaultClient, resp.Header.Get("Location"))
		if _, err := png.DecodeConfig(bytes.NewReader(data)); img.StatusCode != http.StatusOK || err != nil {
			t.Fatalf("the preview: %d, %v", img.StatusCode, err)
		}
		previews = append(previews, data)
	}
	if bytes.Equal(previews[0], previews[1]) {
		t.Error("the second team's preview is the first's: drawn with the other team's font")
	}
}
