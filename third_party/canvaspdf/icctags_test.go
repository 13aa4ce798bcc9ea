package canvaspdf_test

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/iccprofile"
	"github.com/platen-print/platen/third_party/canvaspdf"
)

// TestOutputProfileReadWhole: a profile is read past its 128-byte header:
// random bytes behind a valid header, a cut or damaged tag table, a
// missing or mistyped tag, a transform of the wrong channels or shorter
// than its tables are refused saying so; the real CMYK output profiles
// installed here pass.
func TestOutputProfileReadWhole(t *testing.T) {
	real := []string{"FOGRA39"}
	if err := canvaspdf.CheckOutputProfile(iccprofile.FOGRA39); err != nil {
		t.Errorf("FOGRA39: %v", err)
	}
	files, _ := filepath.Glob("/usr/share/color/icc/*/*.icc")
	for _, f := range files {
		p, err := os.ReadFile(f)
		if err != nil || len(p) < 128 || string(p[12:16]) != "prtr" || string(p[16:20]) != "CMYK" {
			continue
		}
		real = append(real, f)
		if err := canvaspdf.CheckOutputProfile(p); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if len(real) < 3 {
		t.Errorf("checked %v; want Ghostscript's CMYK profiles too (Debian libgs-common)", real)
	}

	random := make([]byte, 6_000_000)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	copy(random, iccprofile.FOGRA39[:128])
	binary.BigEndian.PutUint32(random, uint32(len(random)))

	for name, tc := range map[string]struct {
		edit func(p []byte) []byte
		want string
	}{
		"random bytes behind a valid header": {func([]byte) []byte { return random }, "the ICC profile's tag table lists "},
		"truncated": {func(p []byte) []byte {
			p = p[:len(p)/2]
			binary.BigEndian.PutUint32(p, uint32(len(p)))
			return p
		}, "tag lies outside the profile"},
		"version 5":           {func(p []byte) []byte { p[8] = 5; return p }, "the ICC profile's version is 5.2, want 2.x or 4.x"},
		"an RGB PCS":          {func(p []byte) []byte { copy(p[20:], "RGB "); return p }, `the ICC profile's connection space is "RGB "`},
		"no B2A0":             {func(p []byte) []byte { return renameTag(t, p, "B2A0", "zzzz") }, `the ICC profile has no "B2A0" tag, which an output profile needs`},
		"a curve as A2B0":     {func(p []byte) []byte { copy(tagData(t, p, "A2B0"), "curv"); return p }, `the ICC profile's "A2B0" tag is of type "curv", want one of`},
		"RGB to Lab":          {func(p []byte) []byte { tagData(t, p, "A2B0")[8] = 3; return p }, `the ICC profile's "A2B0" tag maps 3 channels to 3, want 4 to 3`},
		"a grid past its tag": {func(p []byte) []byte { tagData(t, p, "B2A0")[10] = 255; return p }, `the ICC profile's "B2A0" tag is 53692 bytes, short of the`},
	} {
		p := tc.edit(bytes.Clone(iccprofile.FOGRA39))
		err := canvaspdf.CheckOutputProfile(p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", name, err, tc.want)
		}
	}
}

// tagEntry is the tag table entry of sig in profile p.
func tagEntry(t *testing.T, p []byte, sig string) []byte {
	t.Helper()
	for i := range int(binary.BigEndian.Uint32(p[128:])) {
		if rec := p[132+12*i:]; string(rec[:4]) == sig {
			return rec[:12]
		}
	}
	t.Fatalf("no %s tag", sig)
	return nil
}

func tagData(t *testing.T, p []byte, sig string) []byte {
	rec := tagEntry(t, p, sig)
	off, size := binary.BigEndian.Uint32(rec[4:]), binary.BigEndian.Uint32(rec[8:])
	return p[off : off+size]
}

func renameTag(t *testing.T, p []byte, sig, to string) []byte {
	copy(tagEntry(t, p, sig), to)
	return p
}
