package platentest

import (
	"encoding/binary"
	"testing"
)

// FontWithFsType returns a copy of a TTF or OTF font whose OS/2 fsType
// (its licence's embedding flags) is fs, with the OS/2 table's checksum
// fixed: a real font but for its licence, as a font whose licence forbids
// embedding would be.
func FontWithFsType(t testing.TB, data []byte, fs uint16) []byte {
	t.Helper()
	out := append([]byte(nil), data...)
	n := int(binary.BigEndian.Uint16(out[4:]))
	for i := range n {
		rec := out[12+16*i:]
		if string(rec[:4]) != "OS/2" {
			continue
		}
		off, length := binary.BigEndian.Uint32(rec[8:]), binary.BigEndian.Uint32(rec[12:])
		binary.BigEndian.PutUint16(out[off+8:], fs)
		var sum uint32
		table := out[off : off+(length+3)&^3]
		for j := 0; j+4 <= len(table); j += 4 {
			sum += binary.BigEndian.Uint32(table[j:])
		}
		binary.BigEndian.PutUint32(rec[4:], sum)
		return out
	}
	t.Fatal("the font has no OS/2 table")
	return nil
}
