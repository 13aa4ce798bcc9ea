// Package jsonscan splits JSON that is already known to be valid (by
// json.Valid, or because encoding/json produced it) by one plain scan that
// only finds where each value begins and ends. encoding/json validates and
// scans everything below a level each time it is asked for that level, so
// a megabyte of image in a design layer's src was scanned about eight
// times on its way through the API (BENCHMARKS.md); these read it once.
package jsonscan

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Object returns the members of raw, a valid JSON object (the last
// of a repeated key, as encoding/json keeps).
func Object(raw []byte) (map[string]json.RawMessage, bool) {
	i := SkipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	m := map[string]json.RawMessage{}
	i = SkipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return m, true
	}
	for i < len(raw) {
		keyEnd := SkipValue(raw, i) // a string
		key, ok := Unquote(raw[i:keyEnd])
		if !ok {
			return nil, false
		}
		i = SkipSpace(raw, keyEnd)
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		start := SkipSpace(raw, i+1)
		end := SkipValue(raw, start)
		m[key] = raw[start:end]
		i = SkipSpace(raw, end)
		if i >= len(raw) {
			return nil, false
		}
		if raw[i] == '}' {
			return m, true
		}
		i = SkipSpace(raw, i+1) // the comma
	}
	return nil, false
}

// Array returns the elements of raw, a valid JSON array.
func Array(raw []byte) ([]json.RawMessage, bool) {
	i := SkipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	list := []json.RawMessage{}
	i = SkipSpace(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return list, true
	}
	for i < len(raw) {
		end := SkipValue(raw, i)
		list = append(list, raw[i:end])
		i = SkipSpace(raw, end)
		if i >= len(raw) {
			return nil, false
		}
		if raw[i] == ']' {
			return list, true
		}
		i = SkipSpace(raw, i+1) // the comma
	}
	return nil, false
}

// SkipValue returns the end of the valid JSON value that begins at i.
func SkipValue(raw []byte, i int) int {
	if i >= len(raw) {
		return i
	}
	switch raw[i] {
	case '"':
		// The string ends at the first quote that an odd run of
		// backslashes does not escape; quotes are found a word at a time.
		for j := i + 1; ; {
			k := bytes.IndexByte(raw[j:], '"')
			if k < 0 {
				return len(raw)
			}
			quote := j + k
			run := quote
			for run > i+1 && raw[run-1] == '\\' {
				run--
			}
			if (quote-run)%2 == 0 {
				return quote + 1
			}
			j = quote + 1
		}
	case '{', '[':
		depth := 0
		for j := i; j < len(raw); j++ {
			switch raw[j] {
			case '"':
				j = SkipValue(raw, j) - 1
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

// SkipSpace returns the first index from i that is not JSON whitespace.
func SkipSpace(raw []byte, i int) int {
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

// Unquote reads a JSON string as encoding/json does; the common key,
// plain UTF-8 without escapes, at once.
func Unquote(s []byte) (string, bool) {
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
