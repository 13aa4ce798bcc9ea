package inputlimit

import (
	"net/url"
	"runtime"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
)

// arrayDoc is a design whose meta holds n zeros: 8 MB at 4,000,000, the
// body that took a design version to 378 MB.
func arrayDoc(n int) string {
	return `{"width":50,"height":50,"layers":[],"meta":{"a":[` + repeat("0", n) + `]}}`
}

// spread is a design holding n values in arrays of at most 10,000, so that
// only the total passes a limit.
func spread(n int) string {
	var b strings.Builder
	b.WriteString(`{"width":50,"height":50,"layers":[],"meta":{"a":[`)
	for i := 0; n > 0; i++ {
		k := min(n, MaxElements-1)
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("[" + repeat("0", k) + "]")
		n -= k + 1
	}
	b.WriteString("]}}")
	return b.String()
}

func designVersion(config string) []byte {
	b, _ := proto.Marshal(&platenv1.CreateDesignVersionRequest{TemplateConfig: config})
	return b
}

func orderOf(configs ...string) []byte {
	msg := &platenv1.CreateOrderRequest{StoreId: "s"}
	for _, c := range configs {
		msg.Items = append(msg.Items, &platenv1.OrderItem{TemplateConfig: c})
	}
	b, _ := proto.Marshal(msg)
	return b
}

// TestEmbeddedDocumentsMeetTheLimits: a template_config is a string to the
// body's limits, so the document inside met none of them; now it meets
// the same ones, JSON or URL-encoded, and all of a request's documents
// share one budget of values.
func TestEmbeddedDocumentsMeetTheLimits(t *testing.T) {
	dv := (&platenv1.CreateDesignVersionRequest{}).ProtoReflect().Descriptor()
	co := (&platenv1.CreateOrderRequest{}).ProtoReflect().Descriptor()
	half := spread(MaxValues/2 + 10)
	big := spread(MaxValues - 40_000)
	cases := []struct {
		name, field, description string
		b                        []byte
		order                    bool
	}{
		{"4,000,000 zeros", "template_config.meta.a", "holds more than 10,000 elements", designVersion(arrayDoc(4_000_000)), false},
		{"4,000,000 zeros, URL-encoded", "template_config.meta.a", "holds more than 10,000 elements", designVersion(url.QueryEscape(arrayDoc(4_000_000))), false},
		{"250,001 values in short arrays", "template_config", "holds more than 250,000 values in all", designVersion(spread(MaxValues + 10)), false},
		{"33 levels", "template_config" + strings.Repeat(".a", MaxDepth), "nests more than 32 levels deep", designVersion(nest(MaxDepth + 1)), false},
		{"an order item's", "items[1].template_config.meta.a", "holds more than 10,000 elements", orderOf(`{}`, url.QueryEscape(arrayDoc(20_000))), true},
		{"five big documents in one order", "items[4].template_config", "with the request's other documents, holds more than 1,000,000 values in all", orderOf(big, big, big, url.QueryEscape(big), big), true},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			md := dv
			if tt.order {
				md = co
			}
			v := violationOf(t, CheckWire(tt.b, md))
			if v.Field != tt.field || v.Description != tt.description {
				t.Errorf("violation %q: %q, want %q: %q", v.Field, v.Description, tt.field, tt.description)
			}
		})
	}
	t.Run("a document within the limits passes, as do strings that are not JSON", func(t *testing.T) {
		for _, c := range []string{half, url.QueryEscape(half), "not json", "%zz", nest(MaxDepth)} {
			if err := CheckWire(designVersion(c), dv); err != nil {
				t.Errorf("%.40q: %v", c, err)
			}
		}
	})
}

// TestEmbeddedDocumentRefusalAllocatesLittle: refusing the 8 MB document
// costs a scan, not a decode: well under a megabyte, where decoding it
// took hundreds.
func TestEmbeddedDocumentRefusalAllocatesLittle(t *testing.T) {
	dv := (&platenv1.CreateDesignVersionRequest{}).ProtoReflect().Descriptor()
	for name, b := range map[string][]byte{
		"as JSON":                     designVersion(arrayDoc(4_000_000)),
		"URL-encoded":                 designVersion(url.QueryEscape(arrayDoc(4_000_000))),
		"in the last element's total": designVersion(spread(MaxValues + 10)),
	} {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if CheckWire(b, dv) == nil {
				t.Fatal("accepted")
			}
			runtime.ReadMemStats(&after)
			if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 {
				t.Errorf("the refusal allocated %d bytes", got)
			}
		})
	}
}

// BenchmarkCheckWireDocuments checks an 8 MB order of 1,000 items each
// with an 8 KB URL-encoded design, as legitimate bodies near the limit are.
func BenchmarkCheckWireDocuments(b *testing.B) {
	design := url.QueryEscape(`{"width":50,"height":50,"layers":[` + repeat(`{"type":"rect","x":1,"y":2,"width":3,"height":4,"fill":"#ff0000"}`, 80) + `]}`)
	configs := make([]string, 1000)
	for i := range configs {
		configs[i] = design
	}
	msg := orderOf(configs...)
	md := (&platenv1.CreateOrderRequest{}).ProtoReflect().Descriptor()
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if err := CheckWire(msg, md); err != nil {
			b.Fatal(err)
		}
	}
}
