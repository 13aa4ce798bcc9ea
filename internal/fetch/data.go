package fetch

import (
	"encoding/base64"
	"net/url"
	"strings"
	"unsafe"
)

// decodeDataURI returns the bytes of a data: URI (RFC 2397), base64 or
// percent-encoded. Its media type is ignored, as Content-Type is: the
// bytes say what they are.
func decodeDataURI(src string, limit int64) ([]byte, error) {
	meta, payload, ok := strings.Cut(src[len("data:"):], ",")
	if !ok {
		return nil, badDataURI("there is no comma before the data")
	}
	text := payload
	if strings.IndexByte(payload, '%') >= 0 { // base64 may be percent-encoded too
		var err error
		if text, err = url.PathUnescape(payload); err != nil {
			return nil, badDataURI(err.Error())
		}
	}
	var data []byte
	if strings.HasSuffix(strings.ToLower(meta), ";base64") {
		var err error
		if data, err = decodeBase64(text); err != nil {
			return nil, badDataURI(err.Error())
		}
	} else {
		data = []byte(text)
	}
	if int64(len(data)) > limit {
		return nil, tooManyBytes(int64(len(data)), limit)
	}
	return data, nil
}

// decodeBase64 takes base64 as generators write it in the wild: with or
// without padding, wrapped over lines, in the standard or the URL alphabet.
// A photo's data: URL is a megabyte of it, usually none of those: one pass
// finds which, and the text is decoded where it lies, not copied first.
func decodeBase64(s string) ([]byte, error) {
	spaced, urlSafe := false, false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\r', '\n':
			spaced = true
		case '-', '_':
			urlSafe = true
		}
	}
	if spaced {
		s = strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
				return -1
			}
			return r
		}, s)
	}
	s = strings.TrimRight(s, "=")
	enc := base64.RawStdEncoding
	if urlSafe {
		enc = base64.RawURLEncoding
	}
	// Decode only reads its source: the string's bytes serve as they are.
	src := unsafe.Slice(unsafe.StringData(s), len(s))
	out := make([]byte, enc.DecodedLen(len(s)))
	n, err := enc.Decode(out, src)
	return out[:n], err
}

func badDataURI(why string) *failure {
	return &failure{kind: ErrBadURL, reason: "is not a valid data: URI: " + why}
}
