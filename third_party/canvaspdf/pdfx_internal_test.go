package canvaspdf

import (
	"bytes"
	"testing"
)

// TestProfilesAreCompressedOnce: a file holds the very bytes deflated
// once per process (per OutputIntent), not a fresh compression of the
// 127 KB of profiles for each file.
func TestProfilesAreCompressedOnce(t *testing.T) {
	oi, srgb := DefaultOutputIntent(), srgbProfile()
	if DefaultOutputIntent() != oi || &srgbProfile()[0] != &srgb[0] {
		t.Fatal("the default profiles are prepared again")
	}
	for range 2 {
		var buf bytes.Buffer
		pdf := New(&buf, 10, 10, nil)
		if err := pdf.Close(); err != nil {
			t.Fatal(err)
		}
		for name, data := range map[string][]byte{"FOGRA39": oi.deflated, "sRGB": srgb} {
			if n := bytes.Count(buf.Bytes(), data); n != 1 {
				t.Errorf("the file holds the cached %s stream %d times", name, n)
			}
		}
	}
}
