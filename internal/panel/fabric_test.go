package panel_test

import (
	"bytes"
	"image/png"
	"net/http"
	"testing"

	"github.com/platen-print/platen/internal/platentest"
)

// fabricCard is a 100 × 70 mm fabric canvas (800 × 560 px) on a blue
// background, a red rect over its left half turned by nothing, and a
// white disc at its right.
const fabricCard = `{"format":"fabric","width":100,"height":70,"bleed":2,"canvas":{"width":800,"height":560},
"fabric":{"version":"7.4.0","background":"#3030c0","objects":[
 {"type":"Rect","left":0,"top":0,"originX":"left","originY":"top","width":400,"height":560,"fill":"#c03030","strokeWidth":0},
 {"type":"Circle","left":600,"top":280,"radius":100,"width":200,"height":200,"fill":"white","strokeWidth":0}]}}`

// TestAFabricCanvasPreviews: the panel's preview of a print whose design
// is a fabric canvas draws it: the bleed box, the rect red, the background
// blue (in the bleed too), the disc white.
func TestAFabricCanvasPreviews(t *testing.T) {
	srv := platentest.Start(t, platentest.SQLite())
	acme := srv.Bootstrap(t, "acme", "acme-shop")
	member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
	id := orderWith(t, srv, acme, "fabric-card", fabricCard)
	waitStatus(t, srv, member.Token, id, "ready")
	br := newBrowser(t, srv.BaseURL)
	br.signIn("ada@example.com", member.Password)
	resp, _ := br.do("GET", "/operator/prints/"+id+"/preview", nil)
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("preview: %d", resp.StatusCode)
	}
	got, data := platentest.Get(t, http.DefaultClient, resp.Header.Get("Location"))
	img, err := png.Decode(bytes.NewReader(data))
	if got.StatusCode != http.StatusOK || err != nil {
		t.Fatalf("the preview: %d, %v", got.StatusCode, err)
	}
	w, h := float64(img.Bounds().Dx()), float64(img.Bounds().Dy())
	if ratio := w / h; ratio < 104/74.0*0.98 || ratio > 104/74.0*1.02 {
		t.Errorf("preview is %v × %v px, want the 104 × 74 mm bleed box's proportions", w, h)
	}
	mm := w / 104
	for _, p := range []struct {
		x, y    float64 // mm from the bleed box's corner
		r, g, b uint32
	}{{25, 37, 0xc0, 0x30, 0x30}, {60, 10, 0x30, 0x30, 0xc0}, {2 + 75, 37, 0xff, 0xff, 0xff}, {1, 1, 0x30, 0x30, 0xc0}} {
		r, g, b, _ := img.At(int(p.x*mm), int(p.y*mm)).RGBA()
		if abs(int(r>>8)-int(p.r)) > 8 || abs(int(g>>8)-int(p.g)) > 8 || abs(int(b>>8)-int(p.b)) > 8 {
			t.Errorf("at %v, %v mm: #%02x%02x%02x, want #%02x%02x%02x", p.x, p.y, r>>8, g>>8, b>>8, p.r, p.g, p.b)
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
