package designdoc

import (
	"net/url"
	"testing"
)

func TestDecode(t *testing.T) {
	for _, ok := range []string{url.QueryEscape(`{"version":1}`), `{"a":1}`, ` %7B%7D `} {
		if _, err := Decode(ok); err != nil {
			t.Errorf("Decode(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "%zz", url.QueryEscape(`[1]`), url.QueryEscape(`{"a":`), "plain text", "null"} {
		if doc, err := Decode(bad); err == nil {
			t.Errorf("Decode(%q) = %s, want an error", bad, doc)
		}
	}
}

func TestFingerprint(t *testing.T) {
	a, _ := Fingerprint([]byte(`{"b": [1, 2], "a": {"y": "z", "x": 1.50}}`))
	b, _ := Fingerprint([]byte(`{"a":{"x":1.50,"y":"z"},"b":[1,2]}`))
	c, _ := Fingerprint([]byte(`{"a":{"x":1.5,"y":"z"},"b":[1,2]}`))
	d, _ := Fingerprint([]byte(`{"a":{"x":1.50,"y":"z"},"b":[2,1]}`))
	if a == "" || a != b {
		t.Errorf("same document, other spelling: %q vs %q", a, b)
	}
	if a == c || a == d {
		t.Error("different documents share a fingerprint")
	}
}

func TestDeclaredDPI(t *testing.T) {
	for doc, want := range map[string]int{`{"dpi":300}`: 300, `{"dpi":1}`: 1, `{"dpi":10000}`: 10000, `{"dpi":300.0}`: 300, `{"dpi":3e2}`: 300} {
		if got, ok := DeclaredDPI([]byte(doc)); !ok || got != want {
			t.Errorf("DeclaredDPI(%s) = %d, %v; want %d", doc, got, ok, want)
		}
	}
	for _, doc := range []string{`{}`, `{"dpi":null}`, `{"dpi":0}`, `{"dpi":-5}`, `{"dpi":150.5}`, `{"dpi":"300"}`, `{"dpi":10001}`, `{"dpi":NaN}`} {
		if got, ok := DeclaredDPI([]byte(doc)); ok {
			t.Errorf("DeclaredDPI(%s) = %d; want none", doc, got)
		}
	}
}

// FuzzQueryUnescape: the design's unescaper reads every string as
// url.QueryUnescape does, and refuses exactly what it refuses.
func FuzzQueryUnescape(f *testing.F) {
	for _, seed := range []string{"", "a", "%7B%22a%22%3A1%7D", "a+b%2Bc", "%", "%4", "%4g", "%%41", "x%41%", "++%20+", "%e2%82%AC", "%zz%41"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, wantErr := url.QueryUnescape(s)
		got, ok := queryUnescape(s)
		if ok != (wantErr == nil) || ok && string(got) != want {
			t.Fatalf("queryUnescape(%q) = %q, %v; url.QueryUnescape: %q, %v", s, got, ok, want, wantErr)
		}
	})
}
