package renderproc

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
	"google.golang.org/grpc/codes"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/poppler"
)

func fontData(name string, data []byte) *renderv1.FontData {
	sum := sha256.Sum256(data)
	return &renderv1.FontData{Name: name, Data: data, Sha256: hex.EncodeToString(sum[:])}
}

// embeddedFonts lists the fonts pdffonts finds in data, by name, with
// whether each is embedded and subset.
func embeddedFonts(t *testing.T, data []byte) string {
	t.Helper()
	poppler.Need(t, "pdffonts")
	path := filepath.Join(t.TempDir(), "out.pdf")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return poppler.Run(t, "pdffonts", path)
}

// TestRequestFonts: the fonts a request brings are embedded (subset) when
// its document names them, in item renders and sheets alike; a --font-dir
// font of the same name wins; without them the layer's font is unknown;
// a hash that is not the data's is refused.
func TestRequestFonts(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "House-Sans.ttf"), goregular.TTF, 0o600); err != nil {
		t.Fatal(err)
	}
	fonts, err := LoadFonts(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := client(t, Options{Fonts: fonts})
	doc := []byte(`{"width": 100, "height": 100, "layers": [{"type": "text", "text": "hi", "font": "Brand Sans", "size": 10}]}`)

	req := pdfRequest(doc)
	req.Fonts = []*renderv1.FontData{fontData("Brand Sans", gomono.TTF)}
	list := embeddedFonts(t, call(t, c, req).Files[0].Data)
	if !regexp.MustCompile(`(?m)^[A-Z]{6}\+GoMono\s+CID TrueType\s+Identity-H\s+yes\s+yes\s+yes`).MatchString(list) {
		t.Errorf("pdffonts:\n%s", list)
	}

	sheet := sheetsRequest(&renderv1.SheetsJob{BatchUid: "b-1", Template: smallSheet(), Documents: [][]byte{doc},
		Items: []*renderv1.SheetItem{{Document: 0, Copies: 1, Label: "1001 / 1"}}})
	sheet.Fonts = req.Fonts
	if list := embeddedFonts(t, call(t, c, sheet).Files[0].Data); !regexp.MustCompile(`\+GoMono\s`).MatchString(list) {
		t.Errorf("sheets: pdffonts:\n%s", list)
	}

	house := pdfRequest([]byte(`{"width": 100, "height": 100, "layers": [{"type": "text", "text": "hi", "font": "House-Sans", "size": 10}]}`))
	house.Fonts = []*renderv1.FontData{fontData("House-Sans", gomono.TTF)}
	if list := embeddedFonts(t, call(t, c, house).Files[0].Data); !regexp.MustCompile(`\+GoRegular\s`).MatchString(list) {
		t.Errorf("a --font-dir font of the same name: pdffonts:\n%s", list)
	}

	expect(t, c, pdfRequest(doc), codes.InvalidArgument, `layers[0]: unknown font "Brand Sans"`)
	bad := pdfRequest(doc)
	bad.Fonts = []*renderv1.FontData{fontData("Brand Sans", gomono.TTF)}
	bad.Fonts[0].Sha256 = hex.EncodeToString(make([]byte, 32))
	expect(t, c, bad, codes.InvalidArgument, "fonts[0].sha256: is not the SHA-256 of its data")
	twice := pdfRequest(doc)
	twice.Fonts = []*renderv1.FontData{fontData("Brand Sans", gomono.TTF), fontData("Brand Sans", goregular.TTF)}
	expect(t, c, twice, codes.InvalidArgument, `fonts[1].name: "Brand Sans" is named twice`)
}
