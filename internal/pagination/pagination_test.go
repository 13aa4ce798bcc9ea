package pagination

import (
	"encoding/base64"
	"errors"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/apierr"
)

func TestParseSizes(t *testing.T) {
	cases := []struct {
		in   int32
		want int
	}{{0, DefaultSize}, {1, 1}, {MaxSize, MaxSize}, {MaxSize + 1, MaxSize}, {1 << 30, MaxSize}}
	for _, c := range cases {
		p, err := Parse(c.in, "")
		if err != nil || p.Size != c.want || p.After != nil {
			t.Errorf("Parse(%d) = %+v, %v; want size %d", c.in, p, err, c.want)
		}
	}
	var verr *apierr.ValidationError
	if _, err := Parse(-1, ""); !errors.As(err, &verr) || verr.Violations[0].Field != "page_size" {
		t.Errorf("negative size: %v", err)
	}
}

func TestTokenRoundTrip(t *testing.T) {
	c := Cursor{CreatedAt: time.Date(2026, 11, 22, 7, 0, 0, 123456000, time.UTC), UID: "4c7226d4-1296-4e4c-ade8-a99f047b8630"}
	p, err := Parse(10, Token(c))
	if err != nil || p.After == nil || !p.After.CreatedAt.Equal(c.CreatedAt) || p.After.UID != c.UID {
		t.Fatalf("round trip: %+v, %v", p.After, err)
	}
}

func TestForeignTokens(t *testing.T) {
	b64 := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, token := range []string{
		"nonsense", "!!!", b64("after:12"), b64("v1|yesterday|x"), b64("v1|2026-11-22T07:00:00Z|"),
		b64("v2|2026-11-22T07:00:00Z|x"), b64("v1|2026-11-22T07:00:00Z"),
	} {
		var verr *apierr.ValidationError
		if _, err := Parse(10, token); !errors.As(err, &verr) || verr.Violations[0].Field != "page_token" {
			t.Errorf("Parse(%q) = %v, want a page_token violation", token, err)
		}
	}
}

func TestAnswer(t *testing.T) {
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	rows := []string{"a", "b", "c"}
	cursor := func(s string) Cursor { return Cursor{CreatedAt: at, UID: s} }
	out, next := Answer(rows, true, func(s string) int { return len(s) }, cursor)
	page, err := Parse(0, next)
	if len(out) != 3 || err != nil || page.After == nil || page.After.UID != "c" || !page.After.CreatedAt.Equal(at) {
		t.Errorf("a page with more after it: %v, %q → %+v %v", out, next, page.After, err)
	}
	if _, next := Answer(rows, false, func(s string) int { return len(s) }, cursor); next != "" {
		t.Errorf("the last page's token %q", next)
	}
	if out, next := Answer(nil, true, func(s string) int { return len(s) }, cursor); len(out) != 0 || next != "" {
		t.Errorf("an empty page: %v %q", out, next)
	}
}
