package fonts_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"golang.org/x/image/font/gofont/goregular"

	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/sfntcheck"
	"github.com/platen-print/platen/internal/sfntcheck/sfnttest"
)

// TestCFFBombUploads: an OTF font whose glyph calls subroutines that each
// call the next 50 times, 9 deep (50^8 lines drawn), is refused naming
// data and the glyph, whichever glyph holds it, allocating little; the
// upload's trial drawing of "Aa0 " would otherwise never end.
func TestCFFBombUploads(t *testing.T) {
	bombs := []sfnttest.CFFBomb{
		{Rune: 'A', Depth: 9, Fanout: 50},
		{Rune: 'Q', Depth: 9, Fanout: 50}, // a glyph the upload does not draw
		{Rune: 'A', Depth: 12, Fanout: 1},
	}
	fonts := make([][]byte, len(bombs))
	for i, bomb := range bombs {
		data, _, err := bomb.Build(goregular.TTF)
		if err != nil {
			t.Fatal(err)
		}
		// Checked first, so that a server that would take the font is
		// never sent it: drawing it would not end.
		if sfntcheck.Check(data) == nil {
			t.Fatalf("%+v: sfntcheck accepts it", bomb)
		}
		fonts[i] = data
	}
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
		for i, bomb := range bombs {
			var r *platentest.Response
			grew := allocated(func() {
				r = srv.Do(t, "POST", "/api/v1/operator/fonts", member.Token, upload(nil, "Bomb Sans", fonts[i]))
			})
			msg, fields := platentest.ErrorBody(t, r, http.StatusBadRequest)
			if !slices.Equal(fields, []string{"data"}) || !strings.HasPrefix(msg, "data: glyph ") || !strings.Contains(msg, "at most") {
				t.Errorf("%+v: %q %v", bomb, msg, fields)
			}
			if grew > 64<<20 {
				t.Errorf("%+v: serve allocated %d MB refusing it", bomb, grew>>20)
			}
		}
	})
}
