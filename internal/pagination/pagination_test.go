package pagination

import (
	"encoding/base64"
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/platen-print/platen/internal/apierr"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		size int32
		want int
	}{
		{0, DefaultSize},
		{1, 1},
		{DefaultSize, DefaultSize},
		{MaxSize - 1, MaxSize - 1},
		{MaxSize, MaxSize},
		{MaxSize + 1, MaxSize},
		{math.MaxInt32, MaxSize},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(int(tt.size)), func(t *testing.T) {
			p, err := Parse(tt.size, "")
			if err != nil {
				t.Fatalf("Parse(%d, \"\") error = %v", tt.size, err)
			}
			if want := (Page{Size: tt.want}); p != want {
				t.Errorf("Parse(%d, \"\") = %+v, want %+v", tt.size, p, want)
			}
		})
	}
}

func TestParseConstants(t *testing.T) {
	if DefaultSize != 50 || MaxSize != 500 {
		t.Errorf("DefaultSize, MaxSize = %d, %d; the API documents 50 and 500", DefaultSize, MaxSize)
	}
}

func TestParseRejects(t *testing.T) {
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		name      string
		size      int32
		token     string
		wantField string
	}{
		{"negative size", -1, "", "page_size"},
		{"most negative size", math.MinInt32, "", "page_size"},
		{"negative size with a good token", -5, Token(3), "page_size"},
		{"not base64", 10, "!!!", "page_token"},
		{"padded base64", 10, base64.URLEncoding.EncodeToString([]byte("after:5")), "page_token"},
		{"standard base64 alphabet", 10, base64.StdEncoding.EncodeToString([]byte("after:5>>?")), "page_token"},
		{"garbage that decodes", 10, "abcd", "page_token"},
		{"no prefix", 10, enc("5"), "page_token"},
		{"foreign prefix", 10, enc("before:5"), "page_token"},
		{"another API's cursor", 10, enc(`{"offset":5}`), "page_token"},
		{"empty id", 10, enc("after:"), "page_token"},
		{"zero id", 10, enc("after:0"), "page_token"},
		{"negative id", 10, enc("after:-5"), "page_token"},
		{"id with trailing text", 10, enc("after:5x"), "page_token"},
		{"id with a space", 10, enc("after: 5"), "page_token"},
		{"id beyond int", 10, enc("after:99999999999999999999"), "page_token"},
		{"prefix twice", 10, enc("after:after:5"), "page_token"},
		{"plain id", 10, "5", "page_token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(tt.size, tt.token)
			if err == nil {
				t.Fatalf("Parse(%d, %q) = %+v, want an error", tt.size, tt.token, p)
			}
			var verr *apierr.ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("Parse(%d, %q) error = %v (%T), want *apierr.ValidationError", tt.size, tt.token, err, err)
			}
			if len(verr.Violations) != 1 || verr.Violations[0].Field != tt.wantField {
				t.Errorf("Parse(%d, %q) violations = %+v, want one naming %s", tt.size, tt.token, verr.Violations, tt.wantField)
			}
		})
	}
}

func TestTokenRoundTrip(t *testing.T) {
	for _, id := range []int{1, 2, 42, 1_000_000, math.MaxInt32, math.MaxInt32 + 1, math.MaxInt64} {
		t.Run(strconv.Itoa(id), func(t *testing.T) {
			token := Token(id)
			if token == "" {
				t.Fatalf("Token(%d) is empty; an empty token means the last page", id)
			}
			if _, err := base64.RawURLEncoding.DecodeString(token); err != nil {
				t.Errorf("Token(%d) = %q is not URL-safe base64: %v", id, token, err)
			}
			p, err := Parse(20, token)
			if err != nil {
				t.Fatalf("Parse(20, Token(%d)) error = %v", id, err)
			}
			if want := (Page{Size: 20, AfterID: id}); p != want {
				t.Errorf("Parse(20, Token(%d)) = %+v, want %+v", id, p, want)
			}
			// The size is checked independently of the token.
			if p, err := Parse(0, token); err != nil || p.Size != DefaultSize || p.AfterID != id {
				t.Errorf("Parse(0, Token(%d)) = %+v, %v; want size %d after %d", id, p, err, DefaultSize, id)
			}
		})
	}

	t.Run("distinct ids give distinct tokens", func(t *testing.T) {
		seen := map[string]int{}
		for id := 1; id <= 1000; id++ {
			tok := Token(id)
			if prev, ok := seen[tok]; ok {
				t.Fatalf("Token(%d) == Token(%d) == %q", id, prev, tok)
			}
			seen[tok] = id
		}
	})
}
