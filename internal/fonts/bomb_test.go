package fonts_test

import (
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/image/font/gofont/goregular"

	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/sfntcheck/sfnttest"
)

// TestFontBombUploads: a font whose composite glyphs would outline past
// the bounds is refused naming data and the glyph, whichever glyph holds
// the bomb, and refusing it allocates little: the 158 KB font of
// 4 references nested 8 deep took serve past 3.8 GB.
func TestFontBombUploads(t *testing.T) {
	platentest.EachBackendInTurn(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
		// A small bomb first (328,050 points, harmless to outline once),
		// so that a server that takes it is not sent the large ones.
		for i, bomb := range []sfnttest.Bomb{
			{Rune: 'A', Depth: 8, Fanout: 3, Points: 50},
			{Rune: 'A', Depth: 8, Fanout: 4, Points: 5000},
			{Rune: 'Q', Depth: 8, Fanout: 4, Points: 5000}, // a glyph the upload does not outline
			{Rune: 'A', Depth: 2, Fanout: 5000, Points: 1},
		} {
			data, _, err := bomb.Build(goregular.TTF)
			if err != nil {
				t.Fatal(err)
			}
			var r *platentest.Response
			grew := allocated(func() { r = srv.Do(t, "POST", "/api/v1/operator/fonts", member.Token, upload(nil, "Bomb Sans", data)) })
			if r.Status != http.StatusBadRequest {
				t.Fatalf("%+v (%d bytes): %d %s", bomb, len(data), r.Status, r.Raw)
			}
			msg, fields := platentest.ErrorBody(t, r, http.StatusBadRequest)
			if !slices.Equal(fields, []string{"data"}) || !strings.HasPrefix(msg, "data: glyph ") || !strings.Contains(msg, "at most") {
				t.Errorf("%+v: %q %v", bomb, msg, fields)
			}
			// The request's own bytes (base64, JSON, protobuf) are a few
			// copies of the font's 150 KB.
			if i > 0 && grew > 64<<20 {
				t.Errorf("%+v: serve allocated %d MB refusing it", bomb, grew>>20)
			}
		}
	})
}

// allocated is what the process allocates on the heap while f runs.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
