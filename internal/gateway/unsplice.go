package gateway

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"

	"github.com/platen-print/platen/internal/jsonscan"
)

// Requests carry the same megabyte designs the answers echo, and
// protojson's decoder checks a string rune by rune for escapes and UTF-8
// before copying it (an eighth of a 1.1 MB order's POST). A string of
// valid JSON without a backslash, in valid UTF-8, means exactly its
// bytes, so long ones are taken out of the body, the rest is decoded, and
// they are set where their placeholders landed. Anything the shortcut does
// not fully account for is decoded again the plain way.

// unmarshalSpliced decodes the valid JSON body data into msg with
// unmarshal, its long plain strings spliced in rather than decoded. It
// returns the body as decoded (with placeholders, so its keys are data's),
// or ok false having decoded nothing, when data holds no such string or a
// placeholder did not land in a string field.
func unmarshalSpliced(data []byte, msg proto.Message, unmarshal func([]byte, proto.Message) error) ([]byte, bool) {
	small, taken := takeLongPlainJSON(data)
	if len(taken) == 0 || unmarshal(small, msg) != nil {
		return nil, false
	}
	restored := 0
	walkStrings(msg.ProtoReflect(), func(s string, set func(string)) bool {
		n, ok := strings.CutPrefix(s, placeholderPrefix)
		if !ok {
			return true
		}
		i, err := strconv.Atoi(n)
		if err != nil || i < 0 || i >= len(taken) {
			return true
		}
		set(taken[i])
		restored++
		return true
	})
	if restored != len(taken) {
		// One went into a field that is not a string (bytes, a map, an
		// unknown field): decoding it whole is the only right answer.
		return nil, false
	}
	return small, true
}

// meansItsBytes reports whether inner, the inside of a string of valid
// JSON, means exactly its bytes to protojson: no escape, and valid UTF-8
// (which protojson requires).
func meansItsBytes(inner []byte) bool {
	return bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner)
}

// takeLongPlainJSON returns valid JSON data with each string of spliceMin
// bytes or more that means its bytes replaced by a placeholder, and
// the strings taken, in placeholder order. It copies nothing when there is
// none.
func takeLongPlainJSON(data []byte) ([]byte, []string) {
	if len(data) < spliceMin {
		return data, nil // most bodies: no string in them can be long
	}
	var small []byte
	var taken []string
	last := 0
	for i := 0; ; {
		k := bytes.IndexByte(data[i:], '"')
		if k < 0 {
			break
		}
		start := i + k
		end := jsonscan.SkipValue(data, start) // past the closing quote
		if inner := data[start+1 : end-1]; len(inner) >= spliceMin && meansItsBytes(inner) {
			small = append(small, data[last:start]...)
			small = append(small, '"')
			small = append(small, placeholderPrefix...)
			small = strconv.AppendInt(small, int64(len(taken)), 10)
			small = append(small, '"')
			taken = append(taken, string(inner))
			last = end
		}
		i = end
	}
	if len(taken) == 0 {
		return data, nil
	}
	return append(small, data[last:]...), taken
}
