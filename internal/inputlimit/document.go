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
// all the documents of one request share one budget of MaxValues, so that
// a request of many documents costs no more than one of a single document.

// documentTooManyInAll is the total passed, said of one document.
var documentTooManyInAll = "holds more than " + thousands(MaxValues) + " values in all"

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
	s := Scanner{document: true, values: d.values, shared: d.values > 0}
	var err error
	if trimmed := bytes.TrimLeft(val, " \t\n\r"); len(trimmed) > 0 && trimmed[0] == '{' {
		_, err = s.Write(trimmed)
	} else {
		err = writeUnescaped(&s, val)
	}
	d.values = s.values
	if errors.Is(err, errBadEscape) {
		return nil
	}
	return err
}

var errBadEscape = errors.New("bad URL escape")

// writeUnescaped writes the query-unescaped val to s ("+" is a space, %XX
// a byte), passing the runs between escapes as they are.
func writeUnescaped(s *Scanner, val []byte) error {
	var one [1]byte
	for len(val) > 0 {
		i := bytes.IndexAny(val, "%+")
		if i < 0 {
			_, err := s.Write(val)
			return err
		}
		if _, err := s.Write(val[:i]); err != nil {
			return err
		}
		switch {
		case val[i] == '+':
			one[0], val = ' ', val[i+1:]
		case i+2 < len(val) && isHex(val[i+1]) && isHex(val[i+2]):
			one[0], val = unhex(val[i+1])<<4|unhex(val[i+2]), val[i+3:]
		default:
			return errBadEscape
		}
		if _, err := s.Write(one[:]); err != nil {
			return err
		}
	}
	return nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// totalViolation is the 400 of a document past the budget of values:
// its own, or the one it shares with the request's other documents.
func totalViolation(shared bool) error {
	if shared {
		return violation("", "with the request's other documents, "+documentTooManyInAll)
	}
	return violation("", documentTooManyInAll)
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
