package designdoc

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/platen-print/platen/internal/jsonscan"
)

// members is a JSON object's members with the object's path, for errors.
// Every reader of the document goes through it, so that the API and the
// renderer read a document with the same rules.
type members struct {
	path string
	m    map[string]json.RawMessage
}

func (m members) pathOf(name string) string {
	if m.path == "" {
		return name
	}
	return m.path + "." + name
}

// get returns a member's value; a member that is null counts as absent.
func (m members) get(name string) (json.RawMessage, bool) {
	raw, ok := m.m[name]
	if !ok || isNull(raw) {
		return nil, false
	}
	return raw, true
}

// has reports whether a member is given (and not null).
func (m members) has(name string) bool {
	_, ok := m.get(name)
	return ok
}

// only refuses any member not in known: a member the renderer would not
// read is a mistake in the design (a misspelt name, a member of another
// layer type), and printing without it would print something else than
// what was designed. what names the object ("a text layer").
func (m members) only(what string, known []string) error {
	var unknown []string
	for name := range m.m {
		if !slices.Contains(known, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	return errorf(m.pathOf(unknown[0]), "is not a member of %s (its members: %s; keep your own data under meta)",
		what, strings.Join(known, ", "))
}

// rootObject is object for a whole document: it validates it once, which
// lets every level below it be split without validating again.
func rootObject(doc []byte) (members, error) {
	if !jsonscan.Valid(doc) {
		return members{}, errorf("", "must be a JSON object")
	}
	return object(doc, "")
}

// object splits raw, a value inside a document rootObject validated, into
// its members.
func object(raw json.RawMessage, path string) (members, error) {
	m, ok := jsonscan.Object(raw)
	if isNull(raw) || !ok {
		return members{}, errorf(path, "must be a JSON object")
	}
	return members{path: path, m: m}, nil
}

// array splits raw, a value inside a document rootObject validated, into
// its elements.
func array(raw json.RawMessage, path string) ([]json.RawMessage, error) {
	list, ok := jsonscan.Array(raw)
	if isNull(raw) || !ok {
		return nil, errorf(path, "must be an array")
	}
	return list, nil
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// finiteNumber reads a member that is a JSON number; ok is false when it
// is absent or not a number. A number beyond float64 (1e400) is an error.
func (m members) finiteNumber(name string) (v float64, ok bool, err error) {
	raw, present := m.get(name)
	if !present {
		return 0, false, nil
	}
	var n json.Number
	// json.Number takes a string holding a number too; only a number is one.
	if c := raw[0]; (c != '-' && (c < '0' || c > '9')) || json.Unmarshal(raw, &n) != nil {
		return 0, false, errorf(m.pathOf(name), "must be a number, got %s", abbreviate(raw))
	}
	v, err = n.Float64()
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false, errorf(m.pathOf(name), "must be a finite number, got %s", abbreviate(raw))
	}
	return v, true, nil
}

// number reads a finite number, def when absent.
func (m members) number(name string, def float64) (float64, error) {
	v, ok, err := m.finiteNumber(name)
	if err != nil || !ok {
		return def, err
	}
	return v, nil
}

// required reads a number that must be given.
func (m members) required(name string) (float64, error) {
	if !m.has(name) {
		return 0, errorf(m.pathOf(name), "is required")
	}
	return m.number(name, 0)
}

// whole reads a whole number from lo to hi, def when absent.
func (m members) whole(name string, def, lo, hi int) (int, error) {
	v, ok, err := m.finiteNumber(name)
	if err != nil || !ok {
		return def, err
	}
	if v != math.Trunc(v) || v < float64(lo) || v > float64(hi) {
		return 0, errorf(m.pathOf(name), "must be a whole number from %d to %d, got %v", lo, hi, v)
	}
	return int(v), nil
}

// boolean reads true or false, false when absent.
func (m members) boolean(name string) (bool, error) {
	raw, ok := m.get(name)
	if !ok {
		return false, nil
	}
	var v bool
	if json.Unmarshal(raw, &v) != nil {
		return false, errorf(m.pathOf(name), "must be true or false, got %s", abbreviate(raw))
	}
	return v, nil
}

// text reads a string, def when absent.
func (m members) text(name, def string) (string, error) {
	raw, ok := m.get(name)
	if !ok {
		return def, nil
	}
	if raw[0] != '"' {
		return "", errorf(m.pathOf(name), "must be a string, got %s", abbreviate(raw))
	}
	// The document was validated whole (rootObject): a string without an
	// escape, in valid UTF-8, is its bytes. An image's data: URL is
	// megabytes of those, which json.Unmarshal would scan twice more.
	// (json.Unmarshal turns invalid UTF-8 into U+FFFD, which every later
	// reader, protobuf's included, can carry.)
	if body := raw[1 : len(raw)-1]; bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body), nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", errorf(m.pathOf(name), "must be a string, got %s", abbreviate(raw))
	}
	return s, nil
}

// choice reads a string that must be one of choices, the first when absent.
func (m members) choice(name string, choices ...string) (string, error) {
	s, err := m.text(name, choices[0])
	if err != nil {
		return "", err
	}
	if !slices.Contains(choices, s) {
		return "", errorf(m.pathOf(name), "must be %s, got %q", orList(choices), s)
	}
	return s, nil
}

// numbers reads an array of finite numbers.
func (m members) numbers(name string) ([]float64, bool, error) {
	raw, ok := m.get(name)
	if !ok {
		return nil, false, nil
	}
	list, err := array(raw, m.pathOf(name))
	if err != nil {
		return nil, false, err
	}
	out := make([]float64, len(list))
	for i, item := range list {
		item = bytes.TrimSpace(item)
		if len(item) == 0 || (item[0] != '-' && (item[0] < '0' || item[0] > '9')) {
			return nil, false, errorf(m.pathOf(name), "must be an array of numbers, got %s at [%d]", abbreviate(item), i)
		}
		v, err := strconv.ParseFloat(string(item), 64)
		if err != nil || math.IsInf(v, 0) {
			return nil, false, errorf(m.pathOf(name), "must be an array of finite numbers, got %s at [%d]", abbreviate(item), i)
		}
		out[i] = v
	}
	return out, true, nil
}

// orList writes "a, b or c".
func orList(choices []string) string {
	if len(choices) == 1 {
		return choices[0]
	}
	return strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
}

// abbreviate shows a JSON value in an error, cut short when long.
func abbreviate(raw json.RawMessage) string {
	s := string(bytes.TrimSpace(raw))
	if len(s) > 40 {
		return s[:37] + "…"
	}
	return s
}
