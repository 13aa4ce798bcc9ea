package svgart

import (
	"image"
	"image/png"
	"math"
	"os"
	"testing"
)

// TestDumpLogo writes a logo's two rasters to /tmp for a look:
// SVGART_DUMP=03-linear go test -run DumpLogo.
func TestDumpLogo(t *testing.T) {
	name := os.Getenv("SVGART_DUMP")
	if name == "" {
		t.Skip("set SVGART_DUMP")
	}
	svg, err := os.ReadFile("testdata/logos/" + name + ".svg")
	if err != nil {
		t.Fatal(err)
	}
	art, err := Parse(svg)
	if err != nil {
		t.Fatal(err)
	}
	s := art.Size()
	w, h := int(math.Round(s.W*pxPerMM*2)), int(math.Round(s.H*pxPerMM*2))
	pdf := renderPDF(t, art)
	os.WriteFile("/tmp/"+name+".pdf", pdf, 0o644)
	for file, img := range map[string]image.Image{"got": rasterPDF(t, pdf, w, h), "want": rasterSVG(t, svg, w, h)} {
		f, _ := os.Create("/tmp/" + name + "-" + file + ".png")
		png.Encode(f, img)
		f.Close()
	}
}
