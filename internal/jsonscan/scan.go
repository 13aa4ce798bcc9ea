package design

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// The document is read level by level: the root's members, a surface's,
// the layers of a list. encoding/json validates and scans everything below
// a level each time it is asked for that level, so a megabyte of image in
// a layer's src was scanned about eight times on its way through the API's
// bounds check (BENCHMARKS.md). The root is validated once (rootObject);
// below it, levels are split by one plain scan that only finds where each
// value begins and ends.

// rootObject is object for a whole document: it validates it once, which
// lets every level below it be split without validating again.
func rootObject(doc []byte) (members, error) {
	if !json.Valid(doc) {
		return members{}, errorf("", "must be a JSON object")
	}
	return object(doc, "")
}

// splitObject returns the members of raw, a valid JSON object (the last
// of a repeated key, as encoding/json keeps).
func splitObject(raw []byte) (map[string]json.RawMessage, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	m := map[string]json.RawMessage{}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return m, true
	}
	for i < len(raw) {
		keyEnd := skipValue(raw, i) // a string
		key, ok := unquote(raw[i:keyEnd])
		if !ok {
			return nil, false
		}
		i = skipSpace(raw, keyEnd)
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		start := skipSpace(raw, i+1)
		end := skipValue(raw, start)
		m[key] = raw[start:end]
		i = skipSpace(raw, end)
		if i >= len(raw) {
			return nil, false
		}
		if raw[i] == '}' {
			return m, true
		}
		i = skipSpace(raw, i+1) // the comma
	}
	return nil, false
}

// splitArray returns the elements of raw, a valid JSON array.
func splitArray(raw []byte) ([]json.RawMessage, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	list := []json.RawMessage{}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return list, true
	}
	for i < len(raw) {
		end := skipValue(raw, i)
		list = append(list, raw[i:end])
		i = skipSpace(raw, end)
		if i >= len(raw) {
			return nil, false
		}
		if raw[i] == ']' {
			return list, true
		}
		i = skipSpace(raw, i+1) // the comma
	}
	return nil, false
}

// skipValue returns the end of the valid JSON value that begins at i.
func skipValue(raw []byte, i int) int {
	if i >= len(raw) {
		return i
	}
	switch raw[i] {
	case '"':
		for j := i + 1; j < len(raw); j++ {
			switch raw[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return len(raw)
	case '{', '[':
		depth := 0
		for j := i; j < len(raw); j++ {
			switch raw[j] {
			case '"':
				j = skipValue(raw, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(raw)
	}
	// A number, true, false or null: up to the next delimiter.
	j := i
	for j < len(raw) && !isDelimiter(raw[j]) {
		j++
	}
	return j
}

func isDelimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

func skipSpace(raw []byte, i int) int {
	for i < len(raw) {
		switch raw[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// unquote reads a JSON string as encoding/json does; the common key,
// plain UTF-8 without escapes, at once.
func unquote(s []byte) (string, bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", false
	}
	inner := s[1 : len(s)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	var out string // escapes, or bytes encoding/json turns into U+FFFD
	err := json.Unmarshal(s, &out)
	return out, err == nil
}
