package canvaspdf

import (
	"encoding/binary"
	"fmt"
)

// maxICCTags bounds a profile's tag table; real output profiles hold
// 10 to 30 tags.
const maxICCTags = 1000

// outputTags are the tags a CMYK output intent's reader needs, with the
// tag types each may have (ICC.1, output profiles): a name, a copyright,
// the media white point, and the perceptual transforms both ways. ICC.1
// lists gamt too; it is left out since only gamut warnings read it, and
// Ghostscript's own default CMYK profiles do without.
var outputTags = []struct {
	sig   string
	types []string
}{
	{"desc", []string{"desc", "mluc"}},
	{"cprt", []string{"text", "mluc", "desc"}},
	{"wtpt", []string{"XYZ "}},
	{"A2B0", []string{"mft1", "mft2", "mAB "}},
	{"B2A0", []string{"mft1", "mft2", "mBA "}},
}

// checkICCWhole reads an output profile past its header (which checkICC
// has passed): its version, connection space, tag table, and the tags an
// output intent needs, each within the file and of a size its type
// requires.
func checkICCWhole(profile []byte) error {
	if major := profile[8]; major != 2 && major != 4 {
		return fmt.Errorf("the ICC profile's version is %d.%d, want 2.x or 4.x", major, profile[9]>>4)
	}
	if pcs := string(profile[20:24]); pcs != "Lab " && pcs != "XYZ " {
		return fmt.Errorf("the ICC profile's connection space is %q, want \"Lab \" or \"XYZ \"", pcs)
	}
	tags, err := iccTags(profile)
	if err != nil {
		return err
	}
	for _, want := range outputTags {
		data, ok := tags[want.sig]
		if !ok {
			return fmt.Errorf("the ICC profile has no %q tag, which an output profile needs", want.sig)
		}
		if err := checkTagType(want.sig, data, want.types); err != nil {
			return err
		}
	}
	if err := checkLut(tags["A2B0"], "A2B0", 4, 3); err != nil {
		return err
	}
	return checkLut(tags["B2A0"], "B2A0", 3, 4)
}

// iccTags maps the profile's tag signatures to their data, refusing a
// table or a tag that lies past the profile's end.
func iccTags(profile []byte) (map[string][]byte, error) {
	if len(profile) < 132 {
		return nil, fmt.Errorf("the ICC profile has no tag table")
	}
	n := uint64(binary.BigEndian.Uint32(profile[128:]))
	if n > maxICCTags || 132+12*n > uint64(len(profile)) {
		return nil, fmt.Errorf("the ICC profile's tag table lists %d tags, past the profile's end", n)
	}
	tags := make(map[string][]byte, n)
	for i := range n {
		rec := profile[132+12*i:]
		sig := string(rec[:4])
		off, size := uint64(binary.BigEndian.Uint32(rec[4:])), uint64(binary.BigEndian.Uint32(rec[8:]))
		if off < 132+12*n || off+size > uint64(len(profile)) {
			return nil, fmt.Errorf("the ICC profile's %q tag lies outside the profile (bytes %d to %d of %d)", sig, off, off+size, len(profile))
		}
		tags[sig] = profile[off : off+size]
	}
	return tags, nil
}

// checkTagType refuses a tag whose type is none of types.
func checkTagType(sig string, data []byte, types []string) error {
	if len(data) < 12 {
		return fmt.Errorf("the ICC profile's %q tag is %d bytes, too short for any tag type", sig, len(data))
	}
	for _, t := range types {
		if string(data[:4]) == t {
			return nil
		}
	}
	return fmt.Errorf("the ICC profile's %q tag is of type %q, want one of %q", sig, data[:4], types)
}

// checkLut refuses a lut16 or lut8 transform whose channels are not in
// → out, or whose tables run past the tag: the tables' size follows from
// its header. (lutAtoB and lutBtoA tags are checked for their channels.)
func checkLut(data []byte, sig string, in, out int) error {
	if len(data) < 52 {
		return fmt.Errorf("the ICC profile's %q tag is %d bytes, too short for a transform", sig, len(data))
	}
	if gotIn, gotOut := int(data[8]), int(data[9]); gotIn != in || gotOut != out {
		return fmt.Errorf("the ICC profile's %q tag maps %d channels to %d, want %d to %d", sig, gotIn, gotOut, in, out)
	}
	var need uint64
	grid := uint64(data[10])
	clut := uint64(out)
	for range in {
		clut *= grid
	}
	switch string(data[:4]) {
	case "mft1":
		need = 48 + 256*uint64(in) + clut + 256*uint64(out)
	case "mft2":
		inEntries, outEntries := uint64(binary.BigEndian.Uint16(data[48:])), uint64(binary.BigEndian.Uint16(data[50:]))
		need = 52 + 2*(inEntries*uint64(in)+clut+outEntries*uint64(out))
	default:
		return nil
	}
	if need > uint64(len(data)) {
		return fmt.Errorf("the ICC profile's %q tag is %d bytes, short of the %d its tables need", sig, len(data), need)
	}
	return nil
}
