package jsonscan

import "encoding/binary"

// maxDepth is encoding/json's limit of nested objects and arrays, past
// which json.Valid says no.
const maxDepth = 10000

// Valid reports whether data is one JSON value, with whitespace around it,
// exactly as json.Valid does (invalid UTF-8 inside strings is valid there
// too). It reads a string's bytes in a plain loop rather than through
// encoding/json's state machine, a function call per byte, which made
// json.Valid the largest cost of taking a design carrying a photo.
func Valid(data []byte) bool {
	end, ok := validValue(data, SkipSpace(data, 0), 0)
	return ok && SkipSpace(data, end) == len(data)
}

// validValue returns the end of the valid value at i, at depth containers.
func validValue(data []byte, i, depth int) (int, bool) {
	if i >= len(data) {
		return i, false
	}
	switch c := data[i]; {
	case c == '{':
		return validContainer(data, i, depth, '}', true)
	case c == '[':
		return validContainer(data, i, depth, ']', false)
	case c == '"':
		return validString(data, i)
	case c == 't':
		return validLiteral(data, i, "true")
	case c == 'f':
		return validLiteral(data, i, "false")
	case c == 'n':
		return validLiteral(data, i, "null")
	case c == '-' || '0' <= c && c <= '9':
		return validNumber(data, i)
	}
	return i, false
}

// validContainer checks the object (keyed) or array at i, which closes
// with closer.
func validContainer(data []byte, i, depth int, closer byte, keyed bool) (int, bool) {
	if depth++; depth > maxDepth {
		return i, false
	}
	i = SkipSpace(data, i+1)
	if i < len(data) && data[i] == closer {
		return i + 1, true
	}
	for {
		var ok bool
		if keyed {
			if i >= len(data) || data[i] != '"' {
				return i, false
			}
			if i, ok = validString(data, i); !ok {
				return i, false
			}
			if i = SkipSpace(data, i); i >= len(data) || data[i] != ':' {
				return i, false
			}
			i = SkipSpace(data, i+1)
		}
		if i, ok = validValue(data, i, depth); !ok {
			return i, false
		}
		if i = SkipSpace(data, i); i >= len(data) {
			return i, false
		}
		switch data[i] {
		case closer:
			return i + 1, true
		case ',':
			i = SkipSpace(data, i+1)
		default:
			return i, false
		}
	}
}

// validString checks the string whose opening quote is at i: no control
// character, and only JSON's escapes.
func validString(data []byte, i int) (int, bool) {
	j := i + 1
	for {
		j = skipPlainWords(data, j)
		for j < len(data) && plainInString[data[j]] {
			j++
		}
		if j >= len(data) || data[j] < 0x20 {
			return j, false
		}
		if data[j] == '"' {
			return j + 1, true
		}
		n, ok := validEscape(data, j)
		if !ok {
			return j, false
		}
		j += n
	}
}

// Bit masks for testing the eight bytes of a word at once.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// skipPlainWords returns the first index from j whose eight-byte word
// holds a byte that is not plain in a string. A design's photo is a
// megabyte of base64 in one string: testing a word at a time, rather
// than looking each byte up, reads it about four times faster.
func skipPlainWords(data []byte, j int) int {
	for ; j+8 <= len(data); j += 8 {
		w := binary.LittleEndian.Uint64(data[j:])
		if hasByteBelow(w, 0x20) || hasZeroByte(w^(ones*'"')) || hasZeroByte(w^(ones*'\\')) {
			return j
		}
	}
	return j
}

// hasZeroByte reports whether any byte of w is zero. Like hasByteBelow it
// is "Bit Twiddling Hacks"' test, which has no false positives.
func hasZeroByte(w uint64) bool { return (w-ones)&^w&highs != 0 }

// hasByteBelow reports whether any byte of w is less than n, for n up to
// 128 (so a byte of 0x80 or more never counts).
func hasByteBelow(w uint64, n uint64) bool { return (w-ones*n)&^w&highs != 0 }

// plainInString are the bytes a string holds as they are: all but the
// control characters, the quote and the backslash.
var plainInString = func() (plain [256]bool) {
	for c := 0x20; c < 256; c++ {
		plain[c] = c != '"' && c != '\\'
	}
	return plain
}()

// validEscape checks the escape whose backslash is at j and returns its
// length.
func validEscape(data []byte, j int) (int, bool) {
	if j+1 >= len(data) {
		return 0, false
	}
	switch data[j+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, true
	case 'u':
		if j+5 >= len(data) {
			return 0, false
		}
		for _, h := range data[j+2 : j+6] {
			if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
				return 0, false
			}
		}
		return 6, true
	}
	return 0, false
}

func validLiteral(data []byte, i int, word string) (int, bool) {
	if len(data)-i < len(word) || string(data[i:i+len(word)]) != word {
		return i, false
	}
	return i + len(word), true
}

// validNumber checks the number at i: -? (0 | [1-9][0-9]*) (.[0-9]+)?
// ([eE][+-]?[0-9]+)?
func validNumber(data []byte, i int) (int, bool) {
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && '1' <= data[i] && data[i] <= '9':
		i = digits(data, i)
	default:
		return i, false
	}
	if i < len(data) && data[i] == '.' {
		if j := digits(data, i+1); j > i+1 {
			i = j
		} else {
			return i, false
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := digits(data, i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}

func digits(data []byte, i int) int {
	for i < len(data) && '0' <= data[i] && data[i] <= '9' {
		i++
	}
	return i
}
