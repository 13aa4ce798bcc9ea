package designdoc

import (
	"crypto/rand"
	"encoding/base64"
	"net/url"
	"testing"
)

// The template_config of a design carrying a 1.1 MB photo as a data: URL,
// as the latency benchmark's large POST sends it.
func largeConfig() string {
	raw := make([]byte, 800_000)
	_, _ = rand.Read(raw)
	return url.QueryEscape(`{"width":100,"height":100,"layers":[{"type":"image","x":0,"y":0,"width":100,"height":100,"src":"data:image/png;base64,` + base64.StdEncoding.EncodeToString(raw) + `"}]}`)
}

func BenchmarkDecodeLarge(b *testing.B) {
	config := largeConfig()
	b.SetBytes(int64(len(config)))
	for b.Loop() {
		if _, err := Accept(config); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkURLQueryUnescapeLarge(b *testing.B) {
	config := largeConfig()
	b.SetBytes(int64(len(config)))
	for b.Loop() {
		if _, err := url.QueryUnescape(config); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkQueryUnescapeLarge(b *testing.B) {
	config := largeConfig()
	b.SetBytes(int64(len(config)))
	for b.Loop() {
		if _, ok := queryUnescape(config); !ok {
			b.Fatal("refused")
		}
	}
}

// BenchmarkDeclaredDPILarge: the render of a design carrying a photo
// reads its dpi before anything else (4.3 ms through json.Unmarshal).
func BenchmarkDeclaredDPILarge(b *testing.B) {
	doc, err := Decode(largeConfig())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		DeclaredDPI(doc)
	}
}
