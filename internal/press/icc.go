package press

import (
	"encoding/binary"
	"strings"
	"unicode/utf16"

	"github.com/platen-print/platen/third_party/canvaspdf"
)

// MaxProfileBytes bounds a profile file: its base64 in a JSON body must
// stay under the 8 MiB request limit. Press profiles are 0.5 to 3 MB.
const MaxProfileBytes = 6_000_000

// checkProfile is what makes data unfit to be an output intent's profile,
// or "".
func checkProfile(data []byte) string {
	switch {
	case len(data) == 0:
		return "is required: the ICC profile (over REST, base64)"
	case len(data) > MaxProfileBytes:
		return "must be at most 6,000,000 bytes"
	}
	if err := canvaspdf.CheckOutputProfile(data); err != nil {
		return "must be a CMYK output (\"prtr\" class) ICC profile: " + err.Error()
	}
	return ""
}

// maxDescription bounds the description kept of a profile.
const maxDescription = 1000

// description is the profile's desc tag in words: ICC v2's
// textDescriptionType (ASCII) or v4's multiLocalizedUnicodeType (its first
// record); "" when it has none or it does not read. data passed
// checkProfile.
func description(data []byte) string {
	tag := findTag(data, "desc")
	if len(tag) < 12 {
		return ""
	}
	var s string
	switch string(tag[:4]) {
	case "desc":
		n := int(binary.BigEndian.Uint32(tag[8:12]))
		if n <= 0 || 12+n > len(tag) {
			return ""
		}
		s = string(tag[12 : 12+n])
	case "mluc":
		if len(tag) < 28 || binary.BigEndian.Uint32(tag[8:12]) == 0 {
			return ""
		}
		n, off := int(binary.BigEndian.Uint32(tag[20:24])), int(binary.BigEndian.Uint32(tag[24:28]))
		if off < 0 || n < 0 || off+n > len(tag) {
			return ""
		}
		u := make([]uint16, n/2)
		for i := range u {
			u[i] = binary.BigEndian.Uint16(tag[off+2*i:])
		}
		s = string(utf16.Decode(u))
	}
	s = strings.TrimSpace(strings.TrimRight(s, "\x00"))
	if !printable(s) || len(s) > maxDescription {
		return ""
	}
	return s
}

// findTag is the data of the profile's tag sig, or nil.
func findTag(data []byte, sig string) []byte {
	if len(data) < 132 {
		return nil
	}
	count := int(binary.BigEndian.Uint32(data[128:132]))
	for i := range count {
		at := 132 + 12*i
		if at+12 > len(data) {
			return nil
		}
		if string(data[at:at+4]) != sig {
			continue
		}
		off, size := int(binary.BigEndian.Uint32(data[at+4:])), int(binary.BigEndian.Uint32(data[at+8:]))
		if off < 0 || size < 0 || off+size > len(data) {
			return nil
		}
		return data[off : off+size]
	}
	return nil
}

func printable(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == 0xfffd {
			return false
		}
	}
	return true
}
