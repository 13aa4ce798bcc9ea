// Package pagination reads and writes the page_size and opaque page_token
// of every list endpoint. Tokens continue after the last row's id, so a page
// never skips or repeats rows while others are inserted.
package pagination

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/platen-print/platen/internal/apierr"
)

// Page sizes: the default when none is asked for, and the most one page holds.
const (
	DefaultSize = 50
	MaxSize     = 500
)

const tokenPrefix = "after:"

// Page is a checked page request.
type Page struct {
	Size int
	// AfterID is 0 for the first page.
	AfterID int
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
	raw, err := base64.RawURLEncoding.DecodeString(token)
	id, convErr := strconv.Atoi(strings.TrimPrefix(string(raw), tokenPrefix))
	if err != nil || convErr != nil || !strings.HasPrefix(string(raw), tokenPrefix) || id <= 0 {
		return p, apierr.Invalid("page_token", "is not a token this API issued")
	}
	p.AfterID = id
	return p, nil
}

// Token is the page_token that continues after the row with this id.
func Token(lastID int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(tokenPrefix + strconv.Itoa(lastID)))
}
