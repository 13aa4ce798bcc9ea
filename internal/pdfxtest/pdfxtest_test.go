package pdfxtest

import (
	"bytes"
	"fmt"
	"image/color"
	"runtime"
	"strings"
	"testing"

	"github.com/tdewolff/canvas"

	"github.com/platen-print/platen/internal/iccprofile"
	"github.com/platen-print/platen/third_party/canvaspdf"
)

func TestContentColourErrors(t *testing.T) {
	icc := func(name string) bool { return name == "CS0" || name == "Pattern" }
	for stream, want := range map[string]string{
		"/CS0 cs 1 0 0 sc /CS0 CS 0 0 1 SC 0 0 10 10 re B": "",
		"/Pattern cs /P0 scn":                              "",
		// Glyph bytes that spell operators are inside a string.
		"BT /CS0 cs 0 0 0 sc [(\x00rg\x00 g\\) k)] TJ ET <72 67> Tj": "",
		"1 0 0 rg":                       `device colour operator "rg" [1 0 0]`,
		"0.5 G":                          `device colour operator "G" [0.5]`,
		"0 0 0 1 k":                      `device colour operator "k"`,
		"/DeviceRGB cs 1 0 0 sc":         `cs selects "DeviceRGB"`,
		"/CS1 CS 1 SC":                   `CS selects "CS1"`,
		"1 sc":                           "sc in the initial DeviceGray space",
		"% a comment: 1 0 0 rg\n0 0 m":   "",
		"q /CS0 cs 1 1 1 sc Q 0 0 1 RG":  `"RG"`,
		"0 0 10 10 re f":                 `"f" paints in the initial DeviceGray space`,
		"BT /F0 12 Tf (a) Tj ET":         `"Tj" paints in the initial`,
		"/CS0 cs 0 0 0 sc 0 0 m 1 1 l S": `"S" paints in the initial`,
		"q /CS0 cs Q 0 0 1 1 re f":       `"f" paints`,
		"/CS0 cs q Q 0 0 1 1 re f":       "",
	} {
		got := strings.Join(ContentColourErrors([]byte(stream), icc), "; ")
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%q: %q, want %q", stream, got, want)
		}
	}
}

// recorder is a testing.TB that keeps what a check reports.
type recorder struct {
	testing.TB
	msgs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}
func (r *recorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }

// objects runs Objects on pdf and returns what it reported.
func objects(t *testing.T, pdf []byte) string {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Objects(r, pdf, iccprofile.FOGRA39)
	}()
	<-done
	return strings.Join(r.msgs, "\n")
}

// TestObjectsCatchesWhatIsNotPDFX4: a file canvaspdf wrote passes;
// the same file with one requirement broken (same length, so the cross
// reference table still holds) fails, saying why.
func TestObjectsCatchesWhatIsNotPDFX4(t *testing.T) {
	var buf bytes.Buffer
	pdf := canvaspdf.New(&buf, 50, 50, nil)
	c := canvas.NewContext(pdf)
	c.SetFillColor(color.RGBA{R: 255, A: 255})
	c.DrawPath(10, 10, canvas.Rectangle(20, 20))
	if err := pdf.Close(); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	if msgs := objects(t, good); msgs != "" {
		t.Fatalf("a good file fails:\n%s", msgs)
	}
	for _, tc := range []struct{ from, to, want string }{
		{"%PDF-1.6", "%PDF-1.7", "header"},
		{"/S/GTS_PDFX", "/S/GTS_PDFA", "GTS_PDFX"},
		{"/GTS_PDFXVersion(PDF/X-4)", "/GTS_PDFXVersion(PDF/X-3)", "GTS_PDFXVersion"},
		{"<pdfxid:GTS_PDFXVersion>PDF/X-4", "<pdfxid:GTS_PDFXVersion>PDF/X-3", "XMP pdfxid:GTS_PDFXVersion"},
		{"/Trapped/False", "/Trapped/Fakse", "Trapped"},
		{"/TrimBox", "/TrimBax", "TrimBox"},
		{"/BleedBox", "/BleedBax", "BleedBox"},
		{"/N 4", "/N 3", "/N 3"},
		{"/ModDate(D:2", "/ModDate(D:1", "xmp:ModifyDate"},
	} {
		bad := bytes.Replace(good, []byte(tc.from), []byte(tc.to), 1)
		if bytes.Equal(bad, good) {
			t.Errorf("%q is not in the file", tc.from)
			continue
		}
		if msgs := objects(t, bad); !strings.Contains(msgs, tc.want) {
			t.Errorf("%s → %s: %q, want it to mention %q", tc.from, tc.to, msgs, tc.want)
		}
	}
}
