package pdfxtest

import (
	"bufio"
	"bytes"
	"fmt"
	"image/color"
	"io"
	"os/exec"
	"sync"
	"testing"

	"github.com/platen-print/platen/internal/testtools"
)

// Painted is the colour at (x, y) mm from the top-left corner of page
// (from 1) of the PDF file at path, as the file paints it: rasterised at
// dpi by Ghostscript, which leaves the output intent alone unless asked
// (-dUsePDFX3Profile), so sRGB content reads back as the sRGB it was drawn
// in, blended in the page group's sRGB space. pdftoppm, by contrast, shows
// the press's view (see Proof).
func Painted(t testing.TB, path string, page, dpi int, x, y float64) color.RGBA {
	t.Helper()
	testtools.Need(t, "ghostscript", "gs")
	key := fmt.Sprintf("%s|%d|%d", path, page, dpi)
	painted.Lock()
	defer painted.Unlock()
	img, ok := painted.m[key]
	if !ok {
		out, err := exec.Command("gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=ppmraw",
			fmt.Sprintf("-r%d", dpi), fmt.Sprintf("-dFirstPage=%d", page), fmt.Sprintf("-dLastPage=%d", page),
			"-o", "-", path).Output()
		if err != nil {
			t.Fatalf("Ghostscript: %v", err)
		}
		if img.w, img.h, img.pix, err = readPPM(out); err != nil {
			t.Fatal(err)
		}
		painted.m[key] = img
	}
	w, h, pix := img.w, img.h, img.pix
	px, py := int(x/25.4*float64(dpi)), int(y/25.4*float64(dpi))
	if px < 0 || py < 0 || px >= w || py >= h {
		t.Fatalf("(%v, %v) mm is off the %d×%d px page", x, y, w, h)
	}
	i := (py*w + px) * 3
	return color.RGBA{R: pix[i], G: pix[i+1], B: pix[i+2], A: 255}
}

// painted keeps the pages Painted rasterised, by file, page and
// resolution: a test reads several pixels of one page.
var painted = struct {
	sync.Mutex
	m map[string]ppm
}{m: map[string]ppm{}}

type ppm struct {
	w, h int
	pix  []byte
}

// readPPM reads a binary PPM (P6, 8 bits), comments allowed in the header.
func readPPM(b []byte) (w, h int, pix []byte, err error) {
	r := bufio.NewReader(bytes.NewReader(b))
	var fields []int
	magic := ""
	for len(fields) < 3 {
		line, err := r.ReadString('\n')
		if err != nil {
			return 0, 0, nil, fmt.Errorf("PPM header: %v", err)
		}
		if line[0] == '#' {
			continue
		}
		if magic == "" {
			magic = line
			continue
		}
		var a, b int
		if n, _ := fmt.Sscan(line, &a, &b); n == 2 {
			fields = append(fields, a, b)
		} else if n == 1 {
			fields = append(fields, a)
		}
	}
	if magic != "P6\n" || fields[2] != 255 {
		return 0, 0, nil, fmt.Errorf("not an 8-bit P6 PPM: %q %v", magic, fields)
	}
	w, h = fields[0], fields[1]
	pix = make([]byte, w*h*3)
	if _, err := io.ReadFull(r, pix); err != nil {
		return 0, 0, nil, fmt.Errorf("PPM pixels: %v", err)
	}
	return w, h, pix, nil
}
