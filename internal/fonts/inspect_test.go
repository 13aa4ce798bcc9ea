package fonts_test

import (
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"

	"github.com/platen-print/platen/internal/fonts"
	"github.com/platen-print/platen/internal/platentest"
)

// TestInspect: what a font says of itself, and every refusal with its
// reason.
func TestInspect(t *testing.T) {
	info, err := fonts.Inspect(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	if *info != (fonts.Info{Family: "Go", Style: "Regular", PostScriptName: "GoRegular", Format: "ttf", Embedding: "installable"}) {
		t.Errorf("Go Regular: %+v", *info)
	}
	if dejavu, err := os.ReadFile("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"); err == nil {
		info, err := fonts.Inspect(dejavu)
		if err != nil || info.Family != "DejaVu Sans" || info.Style != "Bold" || info.PostScriptName != "DejaVuSans-Bold" {
			t.Errorf("DejaVu Sans Bold: %+v %v", info, err)
		}
	}
	for fs, want := range map[uint16]string{0x0004: "preview_and_print", 0x0008: "editable", 0x000C: "editable", 0x0000: "installable"} {
		info, err := fonts.Inspect(platentest.FontWithFsType(t, gomono.TTF, fs))
		if err != nil || info.Embedding != want || info.FsType != fs {
			t.Errorf("fsType %#04x: %+v %v; want %s", fs, info, err, want)
		}
	}

	otf := append([]byte(nil), goregular.TTF...)
	copy(otf, "OTTO") // an OTF signature on TrueType tables: no CFF table
	collection := append([]byte("ttcf\x00\x01\x00\x00\x00\x00\x00\x01\x00\x00\x00\x10"), goregular.TTF...)
	for name, tc := range map[string]struct {
		data []byte
		want string
	}{
		"nothing":              {nil, "is required: the TTF or OTF file (base64 over REST)"},
		"too large":            {make([]byte, fonts.MaxBytes+1), "the font is 6000001 bytes, over the limit of 6000000"},
		"too short":            {[]byte("\x00\x01\x00\x00"), "is not a TTF or OTF font: 4 bytes is too short for one"},
		"not a font":           {[]byte("%PDF-1.7 this is a PDF file"), "is not a TTF or OTF font (it does not start with an OpenType signature)"},
		"a collection":         {collection, "is a font collection (TTC), which holds several fonts: upload each as its own TTF or OTF file"},
		"a web font":           {append([]byte("wOF2"), goregular.TTF[4:]...), "is a WOFF web font: upload the TTF or OTF font it was made from"},
		"truncated":            {goregular.TTF[:len(goregular.TTF)/2], "the font cannot be read: "},
		"CFF without its CFF":  {otf, "the font cannot be read: CFF: missing table"},
		"restricted":           {platentest.FontWithFsType(t, goregular.TTF, 0x0002), "the font's licence forbids embedding it in documents (OS/2 fsType 0x0002: restricted license embedding)"},
		"restricted, and more": {platentest.FontWithFsType(t, goregular.TTF, 0x0006), "(OS/2 fsType 0x0002: restricted license embedding)"},
		"bitmaps only":         {platentest.FontWithFsType(t, goregular.TTF, 0x0200), "the font's licence allows embedding its bitmaps only, and print files embed outlines (OS/2 fsType 0x0200: bitmap embedding only)"},
		"no subsetting":        {platentest.FontWithFsType(t, goregular.TTF, 0x0100), "the font's licence forbids subsetting it, and print files embed only the glyphs they use (OS/2 fsType 0x0100: no subsetting)"},
	} {
		if _, err := fonts.Inspect(tc.data); err == nil || !strings.HasPrefix(err.Error(), tc.want) && !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", name, err, tc.want)
		}
	}
}

// TestInspectDamagedTables: a font whose tables are damaged anywhere is
// refused with a reason, never a crash.
func TestInspectDamagedTables(t *testing.T) {
	n := int(binary.BigEndian.Uint16(goregular.TTF[4:]))
	for i := range n {
		rec := goregular.TTF[12+16*i:]
		off, length := binary.BigEndian.Uint32(rec[8:]), binary.BigEndian.Uint32(rec[12:])
		for _, fill := range []byte{0x00, 0xff} {
			data := append([]byte(nil), goregular.TTF...)
			for j := off; j < off+length; j++ {
				data[j] = fill
			}
			if _, err := fonts.Inspect(data); err != nil && !strings.HasPrefix(err.Error(), "the font cannot be read: ") && !strings.HasPrefix(err.Error(), "the font's licence") {
				t.Errorf("%s filled with %#x: %v", rec[:4], fill, err)
			}
		}
	}
}
