package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzValid: Valid agrees with json.Valid on any input.
func FuzzValid(f *testing.F) {
	for _, seed := range []string{
		``, ` `, `{}`, `[]`, `{"a":1}`, `{"a":1,}`, `[1,]`, `[,1]`, `{"a" 1}`, `{1:2}`, `"\u00e9\n\"\\\/"`, `"\u00g9"`, `"\x"`,
		"\"a\tb\"", "\"\xff\xfe\"", `-0`, `-`, `01`, `1.`, `1.5e`, `1.5e+3`, `-0.0E-0`, `2e400`, `tru`, `true`, `truex`, `nul`, `null `,
		` [ true , false , null , {"x" : [ ] } ] `, `{} {}`, `{}x`, `"unterminated`, `{"a":"b"`, `[[[[]]]]`, "\t\n\r{}\r\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := Valid(data), json.Valid(data); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid %v", data, got, want)
		}
	})
}

// A string read a word at a time still finds every byte that ends it or
// makes it invalid, wherever in the word it falls, beside bytes of 0x80
// and more.
func TestValidStringWords(t *testing.T) {
	for _, special := range []string{"\x00", "\x1f", "\"", "\\", "\\n", "\\u00e9", "\\x", "\x7f", "\x80", "\xff", " "} {
		for at := range 24 {
			for _, filler := range []byte{'A', 0x9f, 0xdf} {
				inner := []byte(strings.Repeat(string(filler), 24))
				doc := append([]byte(`["`), inner[:at]...)
				doc = append(doc, special...)
				doc = append(doc, inner[at:]...)
				doc = append(doc, `"]`...)
				if got, want := Valid(doc), json.Valid(doc); got != want {
					t.Errorf("Valid(%q) = %v, json.Valid %v", doc, got, want)
				}
			}
		}
	}
}

// encoding/json allows 10,000 nested containers and no more.
func TestValidDepth(t *testing.T) {
	for _, n := range []int{maxDepth, maxDepth + 1} {
		for _, pair := range [][2]string{{"[", "]"}, {`{"a":`, "}"}} {
			doc := []byte(strings.Repeat(pair[0], n) + "1" + strings.Repeat(pair[1], n))
			if got, want := Valid(doc), json.Valid(doc); got != want {
				t.Errorf("%d nested %s: Valid %v, json.Valid %v", n, pair[0], got, want)
			}
		}
	}
}

func BenchmarkValidLarge(b *testing.B) {
	doc := []byte(`{"layers":[{"src":"data:image/png;base64,` + strings.Repeat("QUJDRA+/", 140_000) + `","x":1.5e2}]}`)
	b.Run("jsonscan", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			Valid(doc)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			json.Valid(doc)
		}
	})
}
