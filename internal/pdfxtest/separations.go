package pdfxtest

import (
	"image"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/image/tiff"

	"github.com/platen-print/platen/internal/testtools"
)

// Plates are the separations of one page as Ghostscript's tiffsep device
// prints them: a plate per process ink and per spot colour, what a RIP
// would send to each ink, overprint honoured.
type Plates struct {
	// DPI is the resolution the page was separated at.
	DPI    int
	plates map[string]*image.Gray
}

// Separate separates the page (from 1) of the PDF at path at dpi with
// Ghostscript's tiffsep device.
func Separate(t testing.TB, path string, page, dpi int) *Plates {
	t.Helper()
	testtools.Need(t, "ghostscript", "gs")
	dir := t.TempDir()
	// Every page, each to files of its own: with -dFirstPage or
	// -sPageList, Ghostscript 10.0 leaves the spot plates blank above
	// about 150 dpi.
	gs := exec.Command("gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER",
		"-sDEVICE=tiffsep", "-r"+strconv.Itoa(dpi), "-sOutputFile="+filepath.Join(dir, "page%d.tif"), path)
	if msg, err := gs.CombinedOutput(); err != nil || len(strings.TrimSpace(string(msg))) > 0 {
		t.Fatalf("gs tiffsep: %v\n%s", err, msg)
	}
	prefix := "page" + strconv.Itoa(page)
	names, err := filepath.Glob(filepath.Join(dir, prefix+"(*).tif"))
	if err != nil || len(names) == 0 {
		t.Fatalf("gs tiffsep wrote no plates for page %d (%v)", page, err)
	}
	p := &Plates{DPI: dpi, plates: map[string]*image.Gray{}}
	for _, name := range names {
		plate := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(name), prefix+"("), ").tif")
		p.plates[plate] = readPlate(t, name)
	}
	return p
}

func readPlate(t testing.TB, path string) *image.Gray {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := tiff.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	gray, ok := img.(*image.Gray)
	if !ok {
		t.Fatalf("%s is a %T, not a gray plate", path, img)
	}
	return gray
}

// Names are the plates' names: the process inks, then the spot colours.
func (p *Plates) Names() []string {
	var names []string
	for name := range p.plates {
		names = append(names, name)
	}
	return names
}

// Ink is how much of the named ink the plate puts at x, y mm from the
// page's top-left corner (the MediaBox's), from 0 to 1; a plate that does
// not exist puts none.
func (p *Plates) Ink(name string, x, y float64) float64 {
	plate, ok := p.plates[name]
	if !ok {
		return 0
	}
	px := image.Pt(int(x/25.4*float64(p.DPI)), int(y/25.4*float64(p.DPI)))
	if !px.In(plate.Rect) {
		return 0
	}
	// tiffsep prints each plate as film: black where the ink goes.
	return 1 - float64(plate.GrayAt(px.X, px.Y).Y)/255
}

// InkNear reports whether the named plate carries any ink within r mm of
// x, y: a hairline covers a pixel or two, wherever it falls between them.
func (p *Plates) InkNear(name string, x, y, r float64) bool {
	step := 25.4 / float64(p.DPI)
	for dy := -r; dy <= r; dy += step {
		for dx := -r; dx <= r; dx += step {
			if dx*dx+dy*dy <= r*r && p.Ink(name, x+dx, y+dy) > 0 {
				return true
			}
		}
	}
	return false
}

// Covered is the share of the plate's pixels that carry any of its ink.
func (p *Plates) Covered(name string) float64 {
	plate, ok := p.plates[name]
	if !ok {
		return 0
	}
	n := 0
	for _, v := range plate.Pix {
		if v < 255 {
			n++
		}
	}
	return float64(n) / float64(len(plate.Pix))
}

// Near reports whether two ink amounts agree within a plate's rounding.
func Near(a, b float64) bool { return math.Abs(a-b) <= 0.02 }
