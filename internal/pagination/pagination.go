// Package pagination reads and writes the page_size and opaque page_token
// of every list endpoint. Tokens continue after the last row's key, so a
// page never skips or repeats rows while others are inserted. Keys are
// values the caller already knows (a creation time and a uid), never a
// global counter, which would tell a team how busy the others are.
package pagination

import (
	"encoding/base64"
	"strings"
	"time"

	"github.com/platen-print/platen/internal/apierr"
)

// Page sizes: the default when none is asked for, and the most one page holds.
const (
	DefaultSize = 50
	MaxSize     = 500
)

const tokenVersion = "v1"

// Cursor is the key of the last row of a page: rows are listed newest
// first by (CreatedAt, UID).
type Cursor struct {
	CreatedAt time.Time
	UID       string
}

// Page is a checked page request.
type Page struct {
	Size int
	// After is nil for the first page.
	After *Cursor
}

// Parse checks page_size and page_token.
func Parse(size int32, token string) (Page, error) {
	p := Page{Size: int(size)}
	switch {
	case size < 0:
		return p, apierr.Invalid("page_size", "must not be negative")
	case size == 0:
		p.Size = DefaultSize
	case size > MaxSize:
		p.Size = MaxSize
	}
	if token == "" {
		return p, nil
	}
	c, ok := decode(token)
	if !ok {
		return p, apierr.Invalid("page_token", "is not a token this API issued")
	}
	p.After = &c
	return p, nil
}

func decode(token string) (Cursor, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return Cursor{}, false
	}
	parts := strings.SplitN(string(raw), "|", 3)
	if len(parts) != 3 || parts[0] != tokenVersion || parts[2] == "" {
		return Cursor{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, parts[1])
	if err != nil {
		return Cursor{}, false
	}
	return Cursor{CreatedAt: t.UTC(), UID: parts[2]}, true
}

// Token is the page_token that continues after the row with this key.
func Token(c Cursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte(tokenVersion + "|" + c.CreatedAt.UTC().Format(time.RFC3339Nano) + "|" + c.UID))
}

// Answer converts a page of list with convert and returns it with the
// token of the next page: the cursor of its last row when more follow,
// else "".
func Answer[T, P any](list []T, more bool, convert func(T) P, cursor func(T) Cursor) ([]P, string) {
	out := make([]P, len(list))
	for i, v := range list {
		out[i] = convert(v)
	}
	if !more || len(list) == 0 {
		return out, ""
	}
	return out, Token(cursor(list[len(list)-1]))
}
