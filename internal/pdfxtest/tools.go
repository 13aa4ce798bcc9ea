package pdfxtest

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/poppler"
	"github.com/platen-print/platen/internal/testtools"
)

// Image is a row of pdfimages -list: an image's size and colour space as
// poppler reads them ("icc" for ICCBased, "gray", "cmyk", "rgb" for
// DeviceRGB), and its object number.
type Image struct {
	Type, Colour, Encoding, Object string
	Width, Height                  string
}

// Tools has the programs a print shop's tools are built on read the PDF
// file at path, failing t on what PDF/X-4 does not allow: pdfinfo must
// report PDF 1.6, the PDF/X-4 subtype (from the Info
// dictionary's GTS_PDFXVersion) and a TrimBox and BleedBox on each of its pages (as many
// as wantPages), pdffonts every font embedded, qpdf a clean check, and
// Ghostscript must render every page without a warning. It returns the
// images pdfimages lists.
func Tools(t testing.TB, path string, wantPages int) []Image {
	t.Helper()
	poppler.Need(t, "pdfinfo", "pdffonts", "pdfimages")
	testtools.Need(t, "qpdf", "qpdf")
	testtools.Need(t, "ghostscript", "gs")
	info := poppler.Run(t, "pdfinfo", "-box", "-f", "1", "-l", "1000000", path)
	if !regexp.MustCompile(`\nPDF version:\s+1\.6\n`).MatchString(info) || !regexp.MustCompile(`\nPDF subtype:\s+PDF/X-4\n`).MatchString(info) {
		t.Errorf("pdfinfo: not PDF 1.6, or not recognised as PDF/X-4:\n%s", info)
	}
	for _, box := range []string{"TrimBox:", "BleedBox:"} {
		if n := strings.Count(info, box); n != wantPages {
			t.Errorf("pdfinfo lists %d pages with a %s, want %d:\n%s", n, box, wantPages, info)
		}
	}
	fonts := strings.Split(strings.TrimSpace(poppler.Run(t, "pdffonts", path)), "\n")
	for _, line := range fonts[2:] {
		// name type… encoding emb sub uni object ID: emb is 6th from the end.
		if f := strings.Fields(line); len(f) < 7 || f[len(f)-5] != "yes" {
			t.Errorf("pdffonts: a font is not embedded: %s", line)
		}
	}
	if out, err := exec.Command("qpdf", "--check", path).CombinedOutput(); err != nil || !strings.Contains(string(out), "No syntax or stream encoding errors found") {
		t.Errorf("qpdf --check: %v\n%s", err, out)
	}
	gs := exec.Command("gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-dPDFSTOPONERROR", "-dPDFSTOPONWARNING", "-sDEVICE=nullpage", path)
	if out, err := gs.CombinedOutput(); err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("Ghostscript: %v\n%s", err, out)
	}
	var images []Image
	for i, line := range strings.Split(poppler.Run(t, "pdfimages", "-list", path), "\n") {
		if f := strings.Fields(line); i >= 2 && len(f) > 10 {
			images = append(images, Image{Type: f[2], Width: f[3], Height: f[4], Colour: f[5], Encoding: f[8], Object: f[10]})
		}
	}
	return images
}
