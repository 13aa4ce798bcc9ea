package fetch

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

func jpegURI(data []byte) string {
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(data)
}

// withSize rewrites the size a JPEG's SOF0 header claims.
func withSize(t *testing.T, data []byte, w, h int) []byte {
	t.Helper()
	out := bytes.Clone(data)
	i := bytes.Index(out, []byte{0xff, 0xc0})
	if i < 0 {
		t.Fatal("no SOF0")
	}
	out[i+5], out[i+6] = byte(h>>8), byte(h)
	out[i+7], out[i+8] = byte(w>>8), byte(w)
	return out
}

// TestACutJPEGIsRefused: a JPEG is embedded as it came, so one cut short
// after a header claiming 10000×10000 was embedded whole; now every cut
// of a JPEG is refused as not whole, and the whole one (with bytes after
// its end, as some cameras write) is fetched.
func TestACutJPEGIsRefused(t *testing.T) {
	f := New(Config{})
	whole := jpegBytes(t, 64, 48)
	big := withSize(t, whole, 10000, 10000)
	sos := bytes.Index(whole, []byte{0xff, 0xda})
	if _, err := f.Fetch(t.Context(), jpegURI(big[:sos+200])); err == nil ||
		!errors.Is(err, ErrNotImage) || !strings.Contains(err.Error(), "is not a whole JPEG image: it is cut short") {
		t.Errorf("the 10000×10000 header cut short: %v", err)
	}
	for n := sos; n < len(whole); n++ {
		if _, err := f.Fetch(t.Context(), jpegURI(whole[:n])); err == nil {
			t.Fatalf("cut at %d of %d bytes: accepted", n, len(whole))
		}
	}
	for name, data := range map[string][]byte{
		"whole":                    whole,
		"with bytes after its end": append(bytes.Clone(whole), "trailing"...),
	} {
		if img, err := f.Fetch(t.Context(), jpegURI(data)); err != nil || img.Width != 64 {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestJPEGStructure: the scan follows stuffed bytes, restart markers,
// fill bytes and more than one scan (progressive JPEGs), and refuses a
// file with no scan.
func TestJPEGStructure(t *testing.T) {
	seg := func(marker byte, body ...byte) []byte {
		return append([]byte{0xff, marker, 0, byte(len(body) + 2)}, body...)
	}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	soi, eoi := []byte{0xff, 0xd8}, []byte{0xff, 0xd9}
	sof := seg(0xc2, 8, 0, 1, 0, 1, 1, 1, 0x11, 0)
	scan := cat(seg(0xda, 1, 1, 0, 0, 63, 0), []byte{0x12, 0xff, 0x00, 0x34, 0xff, 0xd0, 0x56, 0xff, 0xff, 0xd1, 0x78})
	tests := map[string]struct {
		data []byte
		want error
	}{
		"two scans and a table between":  {cat(soi, sof, scan, seg(0xc4, 0), scan, eoi), nil},
		"fill bytes before EOI":          {cat(soi, sof, scan, []byte{0xff, 0xff}, eoi), nil},
		"no scan":                        {cat(soi, sof, eoi), errJPEGNoScan},
		"cut in a scan":                  {cat(soi, sof, scan), errJPEGCut},
		"cut in a segment":               {cat(soi, sof[:5]), errJPEGCut},
		"a segment longer than the file": {cat(soi, seg(0xe0, 1, 2, 3)[:6]), errJPEGCut},
	}
	for name, tt := range tests {
		if err := jpegWhole(tt.data); !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", name, err, tt.want)
		}
	}
}
