package sfnttest

import (
	"encoding/binary"
	"fmt"

	sfnt "github.com/tdewolff/font"
)

// Type 2 charstring operators the hostile fonts use.
const (
	OpRlineto  = 5
	OpCallsubr = 10
	OpReturn   = 11
	OpEndchar  = 14
	OpRmoveto  = 21
)

// CFFBomb describes a CFF subroutine bomb: the charstring of Rune's
// glyph calls local subroutine 0, which calls subroutine 1 Fanout times,
// …, Depth subroutines down to one that draws Lines lines (1 to 24; 0
// is 1). Drawn, the glyph holds Fanout^(Depth-1)·Lines lines.
type CFFBomb struct {
	Rune                 rune
	Depth, Fanout, Lines int
}

// Build returns an OpenType font with CFF outlines made from ttf's
// tables (a TrueType font), the bomb as Rune's glyph, and that glyph's id.
func (b CFFBomb) Build(ttf []byte) ([]byte, int, error) {
	if b.Depth < 1 || b.Fanout < 1 || b.Depth > 1000 || b.Lines < 0 || b.Lines > 24 {
		return nil, 0, fmt.Errorf("sfnttest: cannot build %+v", b)
	}
	subrs := make([][]byte, b.Depth)
	for level := range b.Depth - 1 {
		var s []byte
		for range b.Fanout {
			s = append(append(s, Num(level+1-107)...), OpCallsubr)
		}
		subrs[level] = append(s, OpReturn)
	}
	var leaf []byte
	for range max(b.Lines, 1) {
		leaf = append(leaf, Num(10)...)
		leaf = append(leaf, Num(10)...)
	}
	subrs[b.Depth-1] = append(leaf, OpRlineto, OpReturn)
	glyph := Charstring(Num(0), Num(0), OpRmoveto, Num(-107), OpCallsubr, OpEndchar)
	return OTF{Glyphs: map[rune][]byte{b.Rune: glyph}, Subrs: subrs}.Build(ttf)
}

// OTF describes an OpenType font with CFF outlines: every glyph a small
// square but those of Glyphs, whose charstrings may call Subrs.
type OTF struct {
	Glyphs map[rune][]byte
	Subrs  [][]byte
}

// Build returns the font, made from ttf's tables (a TrueType font) with
// a CFF table for its glyf and loca, and the id of the first of Glyphs.
func (o OTF) Build(ttf []byte) ([]byte, int, error) {
	font, err := sfnt.ParseSFNT(ttf, 0)
	if err != nil {
		return nil, 0, err
	}
	n := int(font.NumGlyphs())
	square := Charstring(Num(0), Num(0), OpRmoveto, Num(100), Num(0), OpRlineto, Num(0), Num(100), OpRlineto, Num(-100), Num(0), OpRlineto, OpEndchar)
	charStrings := make([][]byte, n)
	for id := range charStrings {
		charStrings[id] = square
	}
	first := -1
	for r, cs := range o.Glyphs {
		id := int(font.GlyphIndex(r))
		if id == 0 {
			return nil, 0, fmt.Errorf("sfnttest: the font has no glyph for %q", r)
		}
		charStrings[id] = cs
		if first == -1 || id < first {
			first = id
		}
	}
	tables := map[string][]byte{"CFF ": cffTable(charStrings, o.Subrs)}
	for tag, data := range font.Tables {
		switch tag {
		case "glyf", "loca", "fpgm", "prep", "cvt ", "gasp":
		case "maxp":
			tables[tag] = append([]byte{0, 0, 0x50, 0}, data[4:6]...) // version 0.5: numGlyphs only
		case "post":
			// Version 3: CFF fonts name their glyphs in the CFF table.
			tables[tag] = append([]byte{0, 3, 0, 0}, data[4:32]...)
		default:
			tables[tag] = data
		}
	}
	return write([]byte("OTTO"), tables), first, nil
}

// cffTable lays out a CFF table (version 1, one font, not CID-keyed):
// header, Name, Top DICT, String and Global Subrs INDEXes, CharStrings,
// the Private DICT and its local Subrs.
func cffTable(charStrings, subrs [][]byte) []byte {
	head := []byte{1, 0, 4, 4}
	head = append(head, cffIndex([][]byte{[]byte("BombSans")})...)
	// The Top DICT gives offsets as 5-byte integers, so that its size
	// does not depend on them.
	const topSize = 5 + 1 + 5 + 5 + 1
	before := len(head) + len(cffIndex([][]byte{make([]byte, topSize)})) + len(cffIndex(nil)) + len(cffIndex(nil))
	cs := cffIndex(charStrings)
	private := append(dictInt(6), 19) // Subrs: right after the Private DICT
	top := append(dictInt(before), 17)
	top = append(append(append(top, dictInt(len(private))...), dictInt(before+len(cs))...), 18)
	out := append(head, cffIndex([][]byte{top})...)
	out = append(out, cffIndex(nil)...) // no strings
	out = append(out, cffIndex(nil)...) // no global subroutines
	out = append(append(out, cs...), private...)
	return append(out, cffIndex(subrs)...)
}

// cffIndex lays out objects as a CFF INDEX with 4-byte offsets.
func cffIndex(objects [][]byte) []byte {
	out := binary.BigEndian.AppendUint16(nil, uint16(len(objects))) //nolint:gosec // a few
	if len(objects) == 0 {
		return out
	}
	out = append(out, 4)
	offset := 1
	for _, o := range objects {
		out = binary.BigEndian.AppendUint32(out, uint32(offset)) //nolint:gosec // small
		offset += len(o)
	}
	out = binary.BigEndian.AppendUint32(out, uint32(offset)) //nolint:gosec // small
	for _, o := range objects {
		out = append(out, o...)
	}
	return out
}

// dictInt is v as a 5-byte DICT integer.
func dictInt(v int) []byte {
	return binary.BigEndian.AppendUint32([]byte{29}, uint32(v)) //nolint:gosec // small
}

// Num is v as a Type 2 charstring operand.
func Num(v int) []byte {
	switch {
	case v >= -107 && v <= 107:
		return []byte{byte(v + 139)}
	case v >= 108 && v <= 1131:
		return []byte{byte((v-108)/256 + 247), byte((v - 108) % 256)}
	case v >= -1131 && v <= -108:
		return []byte{byte((-v-108)/256 + 251), byte((-v - 108) % 256)}
	}
	return binary.BigEndian.AppendUint16([]byte{28}, uint16(int16(v))) //nolint:gosec // test values
}

// Charstring joins operands (from Num) and operators (bytes) into a
// charstring.
func Charstring(parts ...any) []byte {
	var cs []byte
	for _, p := range parts {
		switch p := p.(type) {
		case []byte:
			cs = append(cs, p...)
		case int:
			cs = append(cs, byte(p))
		}
	}
	return cs
}
