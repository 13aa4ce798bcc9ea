package files

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrInvalidKey is wrapped by every error about a key a caller made.
var ErrInvalidKey = errors.New("files: invalid key")

// maxKeyLen is S3's limit on object keys, in bytes.
const maxKeyLen = 1024

// maxFilenameLen bounds the download filename, in bytes; most file systems
// stop at 255.
const maxFilenameLen = 255

// checkKey refuses keys that could leave the bucket's directory or that the
// two backends would store differently: keys are slash-separated relative
// paths like prints/{team}/{item-uid}/{n}.pdf.
func checkKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("%w: empty", ErrInvalidKey)
	case len(key) > maxKeyLen:
		return fmt.Errorf("%w: longer than %d bytes", ErrInvalidKey, maxKeyLen)
	case !utf8.ValidString(key):
		return fmt.Errorf("%w %q: not UTF-8", ErrInvalidKey, key)
	case strings.HasPrefix(key, "/"):
		return fmt.Errorf("%w %q: it starts with /", ErrInvalidKey, key)
	case strings.HasSuffix(key, ".attrs"):
		return fmt.Errorf("%w %q: .attrs is kept for the local store's metadata", ErrInvalidKey, key)
	case strings.ContainsFunc(key, func(r rune) bool { return unicode.IsControl(r) || r == '\\' }):
		return fmt.Errorf("%w %q: control characters and backslashes are not allowed", ErrInvalidKey, key)
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("%w %q: empty, . and .. path segments are not allowed", ErrInvalidKey, key)
		}
	}
	return nil
}

// cleanFilename makes name safe for a Content-Disposition header and a
// client's disk: no directories, quotes, backslashes or control characters.
// An empty result falls back to the key's last segment.
func cleanFilename(name, key string) string {
	name = strings.ToValidUTF8(name, "_")
	name = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsControl(r):
			return -1
		case r == '/' || r == '\\' || r == '"':
			return '_'
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	for len(name) > maxFilenameLen {
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	if name == "" || name == "." || name == ".." {
		return path.Base(key)
	}
	return name
}

// contentDisposition is the attachment header for a cleaned filename: a
// quoted ASCII filename every client reads, plus RFC 6266's filename* with
// the exact UTF-8 name when they differ.
func contentDisposition(filename string) string {
	ascii := strings.Map(func(r rune) rune {
		if r > unicode.MaxASCII {
			return '_'
		}
		return r
	}, filename)
	header := `attachment; filename="` + ascii + `"`
	if ascii != filename {
		header += "; filename*=UTF-8''" + encodeExtValue(filename)
	}
	return header
}

// encodeExtValue percent-encodes s as an RFC 8187 ext-value, keeping only attr-chars.
func encodeExtValue(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isAttrChar(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&0xf])
	}
	return b.String()
}

func isAttrChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		strings.IndexByte("!#$&+-.^_`|~", c) >= 0
}
