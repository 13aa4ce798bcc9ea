// Package designdoc owns the design document a template_config carries: the
// JSON a customiser generates (URL-encoded or not), its one parse and
// every rule of it (Parse, which both the API and the renderer use), its
// identity for the design-version registry, and the dpi it declares.
package designdoc

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/inputlimit"
	"github.com/platen-print/platen/internal/jsonscan"
)

// Decode reads a template_config and checks that it is one JSON object;
// it returns the document. A value that starts with "{" is JSON as it is
// and is never URL-decoded (its "+" and "%" are its own); any other is
// URL-decoded first.
func Decode(templateConfig string) ([]byte, error) {
	if raw := strings.TrimSpace(templateConfig); strings.HasPrefix(raw, "{") {
		doc := []byte(raw)
		if err := withinLimits(doc); err != nil {
			return nil, err
		}
		if !jsonscan.Valid(doc) {
			return nil, errors.New("must be a JSON object, URL-encoded or not: it starts with { but is not valid JSON")
		}
		return doc, nil
	}
	decoded, ok := queryUnescape(templateConfig)
	if !ok {
		_, err := url.QueryUnescape(templateConfig) // for its account of the bad escape
		return nil, fmt.Errorf("must be URL-encoded JSON: %v", err)
	}
	doc := bytes.TrimSpace(decoded)
	if err := withinLimits(doc); err != nil {
		return nil, err
	}
	if len(doc) == 0 || doc[0] != '{' || !jsonscan.Valid(doc) {
		return nil, errors.New("must URL-decode to a JSON object")
	}
	return doc, nil
}

// withinLimits checks doc against a request body's limits of depth and
// values before anything reads it further: the body's limits count the
// template_config as one string, and decoding what it holds costs far more
// memory than its bytes (an 8 MB array of zeros took a design version to
// 378 MB). The error is an *Error at the place the limit was passed.
func withinLimits(doc []byte) error {
	var verr *apierr.ValidationError
	if err := inputlimit.CheckDocument(doc); errors.As(err, &verr) && len(verr.Violations) > 0 {
		v := verr.Violations[0]
		return &Error{Path: v.Field, Msg: v.Description}
	}
	return nil
}

// Fingerprint identifies a document by its meaning: the same members and
// values give the same fingerprint whatever their order, spacing or
// encoding. Numbers compare by their text, so 300 and 300.0 differ.
func Fingerprint(doc []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	canonical, err := json.Marshal(v) // map keys come out sorted
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:]), nil
}

// DeclaredDPI returns the dpi the document (as Decode returns it: valid
// JSON) sets for itself, when it sets a whole number from 1 to MaxDPI; any
// other value is the renderer's to refuse, and resolves as if absent. It
// reads the top level's members only, skipping over what they hold: a
// design carrying a photo is a megabyte, which json.Unmarshal took 4 ms to
// scan for one number.
func DeclaredDPI(doc []byte) (int, bool) {
	root, ok := jsonscan.Object(doc)
	if !ok {
		return 0, false
	}
	// Read as the parser reads it: any JSON number that is whole (300,
	// 300.0, 3e2); a JSON string does not parse as a float, so it never counts.
	v, err := strconv.ParseFloat(string(bytes.TrimSpace(root["dpi"])), 64)
	if err != nil || v != math.Trunc(v) || v < 1 || v > MaxDPI {
		return 0, false
	}
	return int(v), true
}

// Accept is what the API takes as a template_config: Decode, then Parse,
// the renderer's own reading, so that whatever the API accepts renders
// unless a font or an image it names is missing when it does. It returns
// the document even when it does not parse, for callers that report more
// than one problem; err is an *Error whose path (FieldOf) is relative to
// the template_config.
func Accept(templateConfig string) ([]byte, error) {
	doc, err := Decode(templateConfig)
	if err != nil {
		return nil, err
	}
	_, err = parseValid(doc)
	return doc, err
}

// FieldOf names the member of a problem Accept reported, under field, the
// template_config's own path: "items[0].template_config.layers[1].x". A
// problem of the whole value names field itself.
func FieldOf(field string, err error) (string, string) {
	var e *Error
	if errors.As(err, &e) && e.Path != "" {
		return field + "." + e.Path, e.Msg
	}
	if errors.As(err, &e) {
		return field, e.Msg
	}
	return field, err.Error()
}

// queryUnescape is url.QueryUnescape ('+' is a space, %XX a byte) into
// bytes, copying the runs between escapes whole: a design carrying a
// photo is megabytes of base64 with an escape every few dozen bytes, which
// url.QueryUnescape reads a byte at a time, twice, and then copies again
// as a string. False when an escape is not % and two hex digits.
func queryUnescape(s string) ([]byte, bool) {
	out := make([]byte, 0, len(s))
	pct, plus := indexFrom(s, '%', 0), indexFrom(s, '+', 0)
	for i := 0; ; {
		next := min(pct, plus)
		out = append(out, s[i:next]...)
		switch {
		case next == len(s):
			return out, true
		case next == plus:
			out = append(out, ' ')
			i = next + 1
			plus = indexFrom(s, '+', i)
		default:
			if next+2 >= len(s) || !inputlimit.IsHex(s[next+1]) || !inputlimit.IsHex(s[next+2]) {
				return nil, false
			}
			out = append(out, inputlimit.Unhex(s[next+1])<<4|inputlimit.Unhex(s[next+2]))
			i = next + 3
			pct = indexFrom(s, '%', i)
		}
	}
}

// indexFrom is the index of c in s from i on, or len(s).
func indexFrom(s string, c byte, i int) int {
	if j := strings.IndexByte(s[i:], c); j >= 0 {
		return i + j
	}
	return len(s)
}
