package designdoc

import (
	"net/url"
	"runtime"
	"strings"
	"testing"
)

// TestADocumentMeetsTheBodysLimits: a template_config whose meta held a
// 4,000,000-element array was accepted, and reading it took a design
// version to 378 MB; Decode now refuses it, naming the member and the
// limit, having allocated little more than the document's own bytes.
func TestADocumentMeetsTheBodysLimits(t *testing.T) {
	zeros := `{"width":50,"height":50,"layers":[],"meta":{"a":[` + strings.TrimSuffix(strings.Repeat("0,", 4_000_000), ",") + `]}}`
	deep := `{"width":50,"height":50,"layers":[],"meta":` + strings.Repeat(`{"a":`, 40) + "1" + strings.Repeat("}", 41)
	tests := []struct {
		name, config, field, msg string
	}{
		{"4,000,000 zeros", zeros, "template_config.meta.a", "holds more than 10,000 elements"},
		{"4,000,000 zeros, URL-encoded", url.QueryEscape(zeros), "template_config.meta.a", "holds more than 10,000 elements"},
		{"nested 40 deep", url.QueryEscape(deep), "template_config.meta" + strings.Repeat(".a", 31), "nests more than 32 levels deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := Accept(tt.config)
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Fatal("accepted")
			}
			if field, msg := FieldOf("template_config", err); err == nil || field != tt.field || msg != tt.msg {
				t.Fatalf("%q: %q (%v)", field, msg, err)
			}
			// The document's bytes, copied once (or URL-decoded), and no more.
			if got, most := after.TotalAlloc-before.TotalAlloc, uint64(len(tt.config))+1<<20; got > most {
				t.Errorf("refusing it allocated %d MB, over %d MB", got>>20, most>>20)
			}
		})
	}
}
