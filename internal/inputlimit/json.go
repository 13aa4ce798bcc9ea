package inputlimit

import (
	"bytes"
	"strconv"
	"strings"
)

// maxKeyBytes is how much of an object key the scanner keeps to name a
// path; longer keys are named by their start.
const maxKeyBytes = 64

// Scanner checks a JSON document against the limits as its bytes arrive.
// It is a tokenizer without a parser: it counts values and follows nesting
// and nothing more, in a fixed state of a few kilobytes, so that a body is
// refused after the first byte past a limit and before anything is
// decoded. It does not check that the JSON is well formed; the decoder
// that runs afterwards does.
type Scanner struct {
	levels [MaxDepth]level
	depth  int // open objects and arrays
	values int

	expect   expectation
	inString bool
	escaped  bool
	// inKey is set while the string being read is an object's key.
	inKey bool
	err   error
	// document is set when the JSON is a document embedded in a string,
	// whose messages speak of it rather than of the request; docBefore is
	// the values of the request's documents before it.
	document  bool
	docBefore int
}

// level is one open object or array.
type level struct {
	object bool
	// count is the elements (array) or members (object) seen so far.
	count int
	// key is the current member's key (objects), cut at maxKeyBytes.
	key    [maxKeyBytes]byte
	keyLen int
}

// expectation is what the next byte that is not a space begins.
type expectation uint8

const (
	expectValue   expectation = iota // after [ , : or at the start
	expectKey                        // after { or , in an object
	expectNothing                    // inside or after a value
)

// Write scans the next bytes of the document. It returns the first limit
// passed, as an *apierr.ValidationError naming its path
// (items: holds more than 10,000 elements), and the same error ever after.
func (s *Scanner) Write(p []byte) (int, error) {
	for i := 0; i < len(p) && s.err == nil; i++ {
		if s.inString {
			i = s.stringBytes(p, i)
			continue
		}
		s.token(p[i])
	}
	return len(p), s.err
}

// Err is the first limit passed, or nil.
func (s *Scanner) Err() error { return s.err }

// stringBytes consumes string content from p[i:] up to the closing quote
// and returns the index of the last byte consumed. Values are skipped with
// IndexByte, which is vectorised: most of a large body is strings.
func (s *Scanner) stringBytes(p []byte, i int) int {
	for i < len(p) {
		c := p[i]
		switch {
		case s.escaped:
			s.escaped = false
		case !s.inKey:
			rest := p[i:]
			q := bytes.IndexByte(rest, '"')
			if q < 0 {
				q = len(rest)
			}
			if b := bytes.IndexByte(rest[:q], '\\'); b >= 0 {
				s.escaped = true
				i += b + 1
				continue
			}
			if q == len(rest) {
				return len(p) - 1
			}
			s.inString = false
			return i + q
		case c == '\\':
			s.escaped = true
		case c == '"':
			s.inString, s.inKey = false, false
			return i
		}
		if s.inKey {
			s.keepKeyByte(c)
		}
		i++
	}
	return len(p) - 1
}

func (s *Scanner) keepKeyByte(c byte) {
	l := &s.levels[s.depth-1]
	if l.keyLen < maxKeyBytes {
		l.key[l.keyLen] = c
		l.keyLen++
	}
}

// token handles one byte outside strings.
func (s *Scanner) token(c byte) {
	switch c {
	case ' ', '\t', '\n', '\r':
	case '"':
		if s.expect == expectKey {
			s.member()
		} else if s.expect == expectValue {
			s.value()
		}
		s.inString, s.expect = true, expectNothing
	case '{', '[':
		if s.expect == expectValue {
			s.value()
		}
		s.open(c == '{')
	case '}', ']':
		if s.depth > 0 {
			s.depth--
		}
		s.expect = expectNothing
	case ',':
		s.expect = expectValue
		if s.depth > 0 && s.levels[s.depth-1].object {
			s.expect = expectKey
		}
	case ':':
		s.expect = expectValue
	default: // the start or the rest of a number, true, false or null
		if s.expect == expectValue {
			s.value()
		}
		s.expect = expectNothing
	}
}

// value counts a value starting in the current array (or at the top).
func (s *Scanner) value() {
	s.countValue()
	if s.depth > 0 && !s.levels[s.depth-1].object {
		s.countElement()
	}
}

// member counts a member starting, with its key, in the current object;
// its value counts as a value when it starts, after the colon.
func (s *Scanner) member() {
	s.countElement()
	s.inKey = true
	s.levels[s.depth-1].keyLen = 0
}

func (s *Scanner) countValue() {
	if s.values++; s.values > MaxValues && s.err == nil {
		s.err = violation("", tooManyInAll)
		if s.document {
			s.err = violation("", documentTooManyInAll)
		}
	}
	if s.document && s.docBefore+s.values > MaxDocumentValues && s.err == nil {
		s.err = violation("", documentsTooManyInAll)
	}
}

func (s *Scanner) countElement() {
	l := &s.levels[s.depth-1]
	if l.count++; l.count > MaxElements && s.err == nil {
		s.err = tooManyAt(s.path(s.depth - 1))
		if s.document && s.depth == 1 {
			s.err = violation("", tooMany) // the document's own members
		}
	}
}

// open enters an object or array.
func (s *Scanner) open(object bool) {
	if s.depth == MaxDepth {
		s.err = violation(s.path(s.depth), tooDeep)
		return
	}
	s.levels[s.depth] = level{object: object}
	s.depth++
	s.expect = expectValue
	if object {
		s.expect = expectKey
	}
}

// path names the value open at depth n (0: the document) by its JSON path:
// items[3].properties.colour.
func (s *Scanner) path(n int) string {
	var b strings.Builder
	for _, l := range s.levels[:n] {
		if l.object {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.Write(l.key[:l.keyLen])
			continue
		}
		b.WriteByte('[')
		b.WriteString(strconv.Itoa(l.count - 1))
		b.WriteByte(']')
	}
	return b.String()
}
