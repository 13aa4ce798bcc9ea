package fetch

import (
	"encoding/base64"
	"net/url"
	"strings"
)

// decodeDataURI returns the bytes of a data: URI (RFC 2397), base64 or
// percent-encoded. Its media type is ignored, as Content-Type is: the
// bytes say what they are.
func decodeDataURI(src string, limit int64) ([]byte, error) {
	meta, payload, ok := strings.Cut(src[len("data:"):], ",")
	if !ok {
		return nil, badDataURI("there is no comma before the data")
	}
	text, err := url.PathUnescape(payload) // base64 may be percent-encoded too
	if err != nil {
		return nil, badDataURI(err.Error())
	}
	data := []byte(text)
	if strings.HasSuffix(strings.ToLower(meta), ";base64") {
		if data, err = decodeBase64(text); err != nil {
			return nil, badDataURI(err.Error())
		}
	}
	if int64(len(data)) > limit {
		return nil, tooManyBytes(int64(len(data)), limit)
	}
	return data, nil
}

// decodeBase64 takes base64 as generators write it in the wild: with or
// without padding, wrapped over lines, in the standard or the URL alphabet.
func decodeBase64(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
			return -1
		}
		return r
	}, s)
	s = strings.TrimRight(s, "=")
	if strings.ContainsAny(s, "-_") {
		return base64.RawURLEncoding.DecodeString(s)
	}
	return base64.RawStdEncoding.DecodeString(s)
}

func badDataURI(why string) *failure {
	return &failure{kind: ErrBadURL, reason: "is not a valid data: URI: " + why}
}
