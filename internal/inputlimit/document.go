package inputlimit

import (
	"bytes"
	"errors"

	"github.com/platen-print/platen/internal/apierr"
)

// A request may carry documents inside its strings (a design's
// template_config: JSON, or URL-encoded JSON). The body's limits count such
// a string as one value, yet decoding the document inside can cost as much
// as an unchecked body: a 4,000,000-element array in an 8 MB
// template_config took a design version to 378 MB. Every embedded document
// therefore meets the body's limits too, before anything decodes it, and
// all the documents of one request share a budget of MaxDocumentValues.

// The totals passed, said of one document: its own, and the request's.
var (
	documentTooManyInAll  = "holds more than " + thousands(MaxValues) + " values in all"
	documentsTooManyInAll = "with the request's other documents, holds more than " + thousands(MaxDocumentValues) + " values in all"
)

// CheckDocument checks doc, one embedded JSON document already decoded
// from its string, against the limits. Its error is an
// *apierr.ValidationError whose path is relative to the document (empty:
// the document itself).
func CheckDocument(doc []byte) error {
	var s Scanner
	s.document = true
	_, err := s.Write(doc)
	return err
}

// documentScan scans the embedded documents of one request, with one
// budget of values for them all.
type documentScan struct {
	values int
}

// check scans the document a string field holds: JSON as it is when it
// starts with "{", else URL-encoded JSON, which it decodes as it goes
// without building the decoded copy. A string that is neither is left to
// the validator, which says what is wrong with it; so is a bad escape.
func (d *documentScan) check(val []byte) error {
	s := Scanner{document: true, docBefore: d.values}
	var err error
	if trimmed := bytes.TrimLeft(val, " \t\n\r"); len(trimmed) > 0 && trimmed[0] == '{' {
		_, err = s.Write(trimmed)
	} else {
		err = writeUnescaped(&s, val)
	}
	d.values += s.values
	if errors.Is(err, errBadEscape) {
		return nil
	}
	return err
}

var errBadEscape = errors.New("bad URL escape")

// writeUnescaped writes the query-unescaped val to s ("+" is a space, %XX
// a byte) through a small buffer: a URL-encoded design is an escape every
// few bytes, and a Write each took 65 times as long as the plain scan.
func writeUnescaped(s *Scanner, val []byte) error {
	var buf [4096]byte
	n := 0
	for i := 0; i < len(val); i++ {
		c := val[i]
		switch {
		case c == '+':
			c = ' '
		case c != '%':
		case i+2 < len(val) && IsHex(val[i+1]) && IsHex(val[i+2]):
			c = Unhex(val[i+1])<<4 | Unhex(val[i+2])
			i += 2
		default:
			return errBadEscape
		}
		buf[n] = c
		if n++; n == len(buf) {
			if _, err := s.Write(buf[:]); err != nil {
				return err
			}
			n = 0
		}
	}
	_, err := s.Write(buf[:n])
	return err
}

// IsHex reports whether c is a hexadecimal digit of a %XX escape.
func IsHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// Unhex is the value of the hexadecimal digit c.
func Unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// asViolation returns err's one violation, for callers that name their
// own field.
func asViolation(err error) (apierr.Violation, bool) {
	var verr *apierr.ValidationError
	if !errors.As(err, &verr) || len(verr.Violations) == 0 {
		return apierr.Violation{}, false
	}
	return verr.Violations[0], true
}
