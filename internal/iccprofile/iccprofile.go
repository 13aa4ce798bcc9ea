// Package iccprofile holds the colour profiles every PDF Platen writes
// embeds (PDF/X-4, ISO 15930-7): the default output condition, FOGRA39
// (offset on coated paper), as the output intent, and sRGB, the colour
// space of design colours and RGB photos. Both come from Debian's
// icc-profiles-free under the Zlib licence; build.sh regenerates them and
// README.md says where they came from.
package iccprofile

import _ "embed"

// FOGRA39 is a CMYK output profile (ICC v2, about 120 KB) that ArgyllCMS's
// colprof built from Fogra's FOGRA39L characterisation data.
//
//go:embed FOGRA39.icc
var FOGRA39 []byte

// SRGB is the sRGB display profile (ICC v2, 6.9 KB) icc-profiles-free
// ships: fine for ICCBased RGB content, not an output intent.
//
//go:embed sRGB.icc
var SRGB []byte

// The FOGRA39 output condition as a PDF/X output intent names it: its
// identifier in the ICC's registry of characterisation data, and the
// condition in words (from the data's own PRINT_CONDITIONS).
const (
	FOGRA39Identifier = "FOGRA39"
	FOGRA39Condition  = "Offset printing, according to ISO 12647-2:2004/Amd 1, OFCOM, paper type 1 or 2 = coated art, 115 g/m2, tone value increase curves A (CMY) and B (K)"
	FOGRA39Info       = "Coated FOGRA39 (ISO 12647-2:2004/Amd 1), profile built from Fogra's FOGRA39L.ti3 (Debian icc-profiles-free)"
	// Registry is the ICC's characterisation registry, where FOGRA39 is
	// listed.
	Registry = "http://www.color.org"
)
