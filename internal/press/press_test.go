package press

import (
	"bytes"
	"encoding/binary"
	"testing"
	"unicode/utf16"

	"github.com/platen-print/platen/internal/iccprofile"
)

func TestOverTakesTheLevelsOwnThenTheBase(t *testing.T) {
	uid, spot, ppi, margin, refuse, allow := "p1", "Thru-cut", 150, 2.5, false, true
	level := Settings{OutputProfileUID: &uid, CutContourSpot: &spot, AllowMissingGlyphs: &refuse}
	base := Settings{CutContourSpot: new(string), MinEffectivePPI: &ppi, SafeMarginMM: &margin, AllowMissingGlyphs: &allow}
	got := level.Over(base)
	if got.OutputProfileUID != &uid || got.CutContourSpot != &spot || got.MinEffectivePPI != &ppi || got.SafeMarginMM != &margin ||
		got.AllowMissingGlyphs != &refuse {
		t.Errorf("Over: %+v", got)
	}
	if (Settings{}).Over(Settings{}) != (Settings{}) {
		t.Error("nothing over nothing sets something")
	}
	if got := (Settings{}).Over(base); got.AllowMissingGlyphs != &allow {
		t.Errorf("a level setting nothing: %+v, want the base's allow_missing_glyphs", got)
	}
}

// withTag is a minimal profile header with one tag, desc, holding tag.
func withTag(tag []byte) []byte {
	p := make([]byte, 144)
	binary.BigEndian.PutUint32(p[128:], 1)
	copy(p[132:], "desc")
	binary.BigEndian.PutUint32(p[136:], 144)
	binary.BigEndian.PutUint32(p[140:], uint32(len(tag)))
	return append(p, tag...)
}

func TestDescriptionReadsV2AndV4Tags(t *testing.T) {
	v2 := append([]byte("desc\x00\x00\x00\x00\x00\x00\x00\x06Press\x00"), make([]byte, 8)...)
	text := utf16.Encode([]rune("Presse ünd Papier"))
	v4 := []byte("mluc\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x0cdeDE")
	v4 = binary.BigEndian.AppendUint32(v4, uint32(2*len(text)))
	v4 = binary.BigEndian.AppendUint32(v4, 28)
	for _, u := range text {
		v4 = binary.BigEndian.AppendUint16(v4, u)
	}
	for name, tc := range map[string]struct {
		profile []byte
		want    string
	}{
		"FOGRA39":         {iccprofile.FOGRA39, "FOGRA39 coated (ISO 12647-2:2004/Amd 1), Platen build from FOGRA39L.ti3"},
		"v2 text":         {withTag(v2), "Press"},
		"v4 unicode":      {withTag(v4), "Presse ünd Papier"},
		"a count too big": {withTag([]byte("desc\x00\x00\x00\x00\x00\x00\x10\x00Press")), ""},
		"no tags":         {make([]byte, 132), ""},
		"an unknown type": {withTag([]byte("text\x00\x00\x00\x00Press here")), ""},
		"control bytes":   {withTag([]byte("desc\x00\x00\x00\x00\x00\x00\x00\x03a\x01b")), ""},
	} {
		if got := description(tc.profile); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
	}
}

func TestCheckProfile(t *testing.T) {
	for name, tc := range map[string]struct {
		data []byte
		want string
	}{
		"FOGRA39": {iccprofile.FOGRA39, ""},
		"sRGB":    {iccprofile.SRGB, `must be a CMYK output ("prtr" class) ICC profile: the ICC profile's class is "mntr", want "prtr"`},
		"empty":   {nil, "is required: the ICC profile (over REST, base64)"},
		"too big": {bytes.Repeat([]byte{0}, MaxProfileBytes+1), "must be at most 6,000,000 bytes"},
		"not ICC": {[]byte("hello"), `must be a CMYK output ("prtr" class) ICC profile: not an ICC profile`},
	} {
		if got := checkProfile(tc.data); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
	}
}
