package iccprofile

import (
	"encoding/binary"
	"testing"
)

// TestProfilesAreWhatTheyClaim reads the ICC headers: a profile whose
// colour space is not what the PDF says (N 4, N 3) would be refused by a
// RIP, or worse, misread.
func TestProfilesAreWhatTheyClaim(t *testing.T) {
	for _, tc := range []struct {
		name          string
		data          []byte
		class, colour string
	}{
		{"FOGRA39", FOGRA39, "prtr", "CMYK"},
		{"sRGB", SRGB, "mntr", "RGB "},
	} {
		d := tc.data
		if len(d) < 128 {
			t.Fatalf("%s: %d bytes", tc.name, len(d))
		}
		if size := binary.BigEndian.Uint32(d[0:4]); int(size) != len(d) {
			t.Errorf("%s: header says %d bytes, has %d", tc.name, size, len(d))
		}
		if string(d[36:40]) != "acsp" || string(d[12:16]) != tc.class || string(d[16:20]) != tc.colour {
			t.Errorf("%s: signature %q, class %q, colour space %q", tc.name, d[36:40], d[12:16], d[16:20])
		}
	}
}
