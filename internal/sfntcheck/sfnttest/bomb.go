// Package sfnttest builds hostile fonts for the tests and the hostile
// benchmark, from a real TrueType font at run time, so that no font file
// is kept without the code that made it.
package sfnttest

import (
	"encoding/binary"
	"fmt"
	"sort"

	sfnt "github.com/tdewolff/font"
)

// Bomb describes a composite glyph bomb: the glyph of Rune becomes a
// composite of Fanout references to a composite of Fanout references …,
// Depth levels down to one simple glyph of Points points. Outlined, the
// glyph holds Fanout^Depth copies of that simple glyph.
type Bomb struct {
	Rune                  rune
	Depth, Fanout, Points int
}

// Build returns ttf (a TrueType font with more than Depth glyphs) with
// the bomb in place of Rune's glyph, and that glyph's id. The bomb's
// other glyphs replace the font's last ones.
func (b Bomb) Build(ttf []byte) ([]byte, int, error) {
	font, err := sfnt.ParseSFNT(ttf, 0)
	if err != nil {
		return nil, 0, err
	}
	top, n := int(font.GlyphIndex(b.Rune)), int(font.NumGlyphs())
	if top == 0 || top >= n-b.Depth || b.Points < 1 || b.Points > 65535 || b.Depth < 1 || b.Fanout < 1 {
		return nil, 0, fmt.Errorf("sfnttest: cannot build %+v in a font of %d glyphs (the rune's glyph is %d)", b, n, top)
	}
	tables := map[string][]byte{}
	for tag, data := range font.Tables {
		tables[tag] = data
	}
	glyphs := make([][]byte, n)
	for id := range n {
		glyphs[id] = font.Glyf.Get(uint16(id))
	}
	// The leaf is the last glyph, each level the one before it, and the
	// rune's glyph the top.
	glyphs[n-1] = simpleGlyph(b.Points)
	for level := 1; level <= b.Depth; level++ {
		id := n - 1 - level
		if level == b.Depth {
			id = top
		}
		glyphs[id] = compositeGlyph(n-level, b.Fanout)
	}
	tables["glyf"], tables["loca"] = glyfLoca(glyphs)
	head := append([]byte(nil), tables["head"]...)
	binary.BigEndian.PutUint16(head[50:], 1) // long loca offsets
	tables["head"] = head
	return write(ttf[:4], tables), top, nil
}

// simpleGlyph is one contour of points on-curve points, each one unit
// right and up of the last.
func simpleGlyph(points int) []byte {
	g := make([]byte, 0, 14+3*points)
	g = binary.BigEndian.AppendUint16(g, 1) // numberOfContours
	g = append(g, 0, 0, 0, 0, 0x7f, 0xff, 0x7f, 0xff)
	g = binary.BigEndian.AppendUint16(g, uint16(points-1)) //nolint:gosec // at most 65535
	g = binary.BigEndian.AppendUint16(g, 0)                // no instructions
	for range points {
		g = append(g, 0x37) // on curve, x and y one positive byte each
	}
	for range 2 * points {
		g = append(g, 1)
	}
	return g
}

// compositeGlyph refers fanout times to glyph sub, each offset by bytes.
func compositeGlyph(sub, fanout int) []byte {
	g := binary.BigEndian.AppendUint16(nil, 0xffff) // numberOfContours -1
	g = append(g, 0, 0, 0, 0, 0x7f, 0xff, 0x7f, 0xff)
	for i := range fanout {
		flags := uint16(0x0002) // ARGS_ARE_XY_VALUES, byte arguments
		if i < fanout-1 {
			flags |= 0x0020 // MORE_COMPONENTS
		}
		g = binary.BigEndian.AppendUint16(g, flags)
		g = binary.BigEndian.AppendUint16(g, uint16(sub)) //nolint:gosec // a glyph id
		g = append(g, byte(i), byte(i))
	}
	return g
}

// glyfLoca lays glyphs out as a glyf table and its long loca.
func glyfLoca(glyphs [][]byte) (glyf, loca []byte) {
	for _, g := range glyphs {
		loca = binary.BigEndian.AppendUint32(loca, uint32(len(glyf))) //nolint:gosec // small
		glyf = append(glyf, g...)
		if len(glyf)%2 == 1 {
			glyf = append(glyf, 0)
		}
	}
	return glyf, binary.BigEndian.AppendUint32(loca, uint32(len(glyf))) //nolint:gosec // small
}

// write lays tables out as a font file of the given version, each table
// 4-byte aligned with its checksum.
func write(version []byte, tables map[string][]byte) []byte {
	tags := make([]string, 0, len(tables))
	for tag := range tables {
		tags = append(tags, tag)
	}
	sort.Strings(tags)
	out := append([]byte(nil), version...)
	out = binary.BigEndian.AppendUint16(out, uint16(len(tags))) //nolint:gosec // a few
	out = append(out, 0, 0, 0, 0, 0, 0)                         // search hints, unused by readers
	offset := len(out) + 16*len(tags)
	var body []byte
	for _, tag := range tags {
		data := tables[tag]
		out = append(out, tag...)
		out = binary.BigEndian.AppendUint32(out, checksum(data))
		out = binary.BigEndian.AppendUint32(out, uint32(offset+len(body))) //nolint:gosec // small
		out = binary.BigEndian.AppendUint32(out, uint32(len(data)))        //nolint:gosec // small
		body = append(body, data...)
		for len(body)%4 != 0 {
			body = append(body, 0)
		}
	}
	return append(out, body...)
}

func checksum(data []byte) uint32 {
	var sum uint32
	for i := 0; i < len(data); i += 4 {
		var w [4]byte
		copy(w[:], data[i:])
		sum += binary.BigEndian.Uint32(w[:])
	}
	return sum
}
