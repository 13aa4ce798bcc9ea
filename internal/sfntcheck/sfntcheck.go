// Package sfntcheck bounds the work a TrueType or OpenType font file can
// make its reader do, before any glyph is outlined. The font library
// outlines a composite glyph by copying every component's points, as
// often as the glyph refers to it, and runs a CFF glyph's subroutines as
// often as its charstring calls them: a small file whose glyph nests a
// few references or calls several levels deep expands to billions of
// points. Check walks the whole font's structure instead, each glyph and
// subroutine once, and refuses what would outline beyond the bounds
// below; it neither outlines nor allocates per point.
package sfntcheck

import (
	"encoding/binary"
	"fmt"

	sfnt "github.com/tdewolff/font"
)

// The bounds a glyph must keep. OpenType fonts state their own in maxp
// (maxComponentDepth, maxCompositePoints, maxCompositeContours), which
// real fonts keep far below these; they are not trusted, since the
// library does not read them either.
const (
	// MaxComponentDepth bounds how deep composite glyphs nest: a glyph
	// with contours is 0 deep, a composite one one more than its deepest
	// component. Real fonts use 1 to 3 (accented letters over accented
	// letters); the font library itself stops at 8.
	MaxComponentDepth = 8
	// MaxGlyphPoints bounds a glyph's points once its components are
	// expanded. TrueType numbers a glyph's points with 16 bits (the
	// instructions, maxp's maxCompositePoints), so a valid font never
	// needs more; the largest glyphs of the CJK and symbol fonts Debian
	// ships hold a few thousand.
	MaxGlyphPoints = 65535
	// MaxGlyphComponents bounds the component references a glyph
	// expands to, each costing a copy of the component's outline even
	// when it has no points. Real fonts use a few per glyph.
	MaxGlyphComponents = 4096
)

// Check reports what in data, a TrueType or OpenType font, exceeds what
// the renderer may be asked to outline, or nil. Its error is the reason
// for a font upload's data field, or for a print failure.
func Check(data []byte) error {
	if len(data) < 12 {
		return unreadable("%d bytes is too short for a font", len(data))
	}
	switch string(data[:4]) {
	case "ttcf":
		return checkCollection(data)
	case "wOFF", "wOF2":
		// Web fonts are refused at upload; a --font-dir file may be one,
		// and the library reads its tables once decompressed.
		plain, err := sfnt.ToSFNT(data)
		if err != nil {
			return unreadable("%v", err)
		}
		return checkFont(plain, 0)
	}
	return checkFont(data, 0)
}

// checkCollection checks each font of a TrueType collection, whose table
// offsets count from the start of the file.
func checkCollection(data []byte) error {
	n := int(binary.BigEndian.Uint32(data[8:]))
	if n > (len(data)-12)/4 {
		return unreadable("its collection header lists %d fonts, past the end of the file", n)
	}
	for i := range n {
		at := int64(binary.BigEndian.Uint32(data[12+4*i:]))
		if at+12 > int64(len(data)) {
			return unreadable("font %d of the collection lies past the end of the file", i)
		}
		if err := checkFont(data, int(at)); err != nil {
			return err
		}
	}
	return nil
}

// checkFont checks the font whose table directory starts at data[at:].
func checkFont(data []byte, at int) error {
	tables, err := directory(data, at)
	if err != nil {
		return err
	}
	if tables["CFF2"] != nil {
		// The font library reads no CFF2 (variable) outlines.
		return unreadable("its outlines are in a CFF2 table, which Platen cannot draw")
	}
	if cff := tables["CFF "]; cff != nil {
		if err := checkCFF(cff); err != nil {
			return err
		}
	}
	if tables["glyf"] != nil {
		return checkGlyf(tables)
	}
	return nil
}

// unreadable prefixes the reason a font's structure cannot be read.
func unreadable(format string, args ...any) error {
	return fmt.Errorf("the font cannot be read: "+format, args...)
}

// directory maps the tags of the font at data[at:] to their tables'
// data, every table lying within data.
func directory(data []byte, at int) (map[string][]byte, error) {
	n := int(binary.BigEndian.Uint16(data[at+4:]))
	if at+12+16*n > len(data) {
		return nil, unreadable("its table directory lists %d tables, past the end of the file", n)
	}
	tables := make(map[string][]byte, n)
	for i := range n {
		rec := data[at+12+16*i:]
		tag := string(rec[:4])
		off, length := uint64(binary.BigEndian.Uint32(rec[8:])), uint64(binary.BigEndian.Uint32(rec[12:]))
		if off+length > uint64(len(data)) {
			return nil, unreadable("its %q table lies past the end of the file", tag)
		}
		tables[tag] = data[off : off+length]
	}
	return tables, nil
}
