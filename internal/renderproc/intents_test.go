package renderproc

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/iccprofile"
)

// TestPressSettingsOfARequest: a request's output intent and limits are
// checked as its other fields are, a crossed limit fails as the
// document's fault (never retried), and an intent is prepared once per
// profile and names.
func TestPressSettingsOfARequest(t *testing.T) {
	c := client(t, Options{})
	doc := []byte(fmt.Sprintf(`{"width":100,"height":100,"layers":[{"type":"image","src":%q,"x":10,"y":10,"width":80,"height":60}]}`, pngDataURI(t)))
	pdf := []renderv1.Format{renderv1.Format_FORMAT_PDF}
	srgb := &renderv1.OutputIntent{Profile: iccprofile.SRGB, Identifier: "sRGB"}
	for _, tc := range []struct {
		name     string
		settings *renderv1.PrintSettings
		msg      string
	}{
		{"a display profile", &renderv1.PrintSettings{OutputIntent: srgb}, `settings.output_intent: canvaspdf: output condition sRGB: the ICC profile's class is "mntr", want "prtr"`},
		{"a wrong hash", &renderv1.PrintSettings{OutputIntent: &renderv1.OutputIntent{Profile: iccprofile.FOGRA39, Sha256: "00", Identifier: "X"}},
			"settings.output_intent.sha256: is not the SHA-256 of its profile"},
		{"no identifier", &renderv1.PrintSettings{OutputIntent: &renderv1.OutputIntent{Profile: iccprofile.FOGRA39}}, "an output condition needs an identifier"},
		{"a negative margin", &renderv1.PrintSettings{SafeMarginMm: -1}, "settings.safe_margin_mm: must be from 0 to 100"},
		{"a crossed limit", &renderv1.PrintSettings{MinEffectivePpi: 300},
			"layers[0]: the 40×30 image is 13 ppi at its placed size, below the minimum of 300 ppi set for this product"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expect(t, c, &renderv1.RenderRequest{Document: doc, Formats: pdf, Settings: tc.settings}, codes.InvalidArgument, tc.msg)
		})
	}

	var cache intents
	sum := sha256.Sum256(iccprofile.FOGRA39)
	in := &renderv1.OutputIntent{Profile: iccprofile.FOGRA39, Sha256: hex.EncodeToString(sum[:]), Identifier: "FOGRA39"}
	first, err := cache.get(in)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := cache.get(in); again != first {
		t.Error("the same intent was prepared twice")
	}
	renamed := &renderv1.OutputIntent{Profile: iccprofile.FOGRA39, Identifier: "Coated"}
	if other, _ := cache.get(renamed); other == first || other.Condition().Identifier != "Coated" {
		t.Error("another identifier for the same profile got the first intent")
	}
}

// TestAllowMissingGlyphsOfARequest: a character no font has fails a
// render as the document's fault, naming it, unless the request's
// settings allow it: then the item's files come with a missing_glyphs
// warning, and a sheets job with the item lays it out.
func TestAllowMissingGlyphsOfARequest(t *testing.T) {
	c := client(t, Options{})
	doc := []byte(`{"width":90,"height":130,"layers":[{"type":"text","text":"Ada \ue000","size":18,"x":5,"y":5,"width":80}]}`)
	const reason = `layers[0]: no font has the characters "\ue000" (U+E000); fonts tried: `
	item := &renderv1.RenderRequest{Document: doc, Formats: []renderv1.Format{renderv1.Format_FORMAT_PDF, renderv1.Format_FORMAT_PNG},
		Preflight: true, Settings: &renderv1.PrintSettings{Dpi: 72}}
	sheets := sheetsRequest(&renderv1.SheetsJob{BatchUid: "b-1", Template: smallSheet(), Documents: [][]byte{doc},
		Items: []*renderv1.SheetItem{{Document: 0, Copies: 2, Label: "1001 / 1", BatchIndex: 3}}})
	sheets.Settings = &renderv1.PrintSettings{MinEffectivePpi: 150} // a limit: the items are preflighted first
	expect(t, c, item, codes.InvalidArgument, reason)
	expect(t, c, sheets, codes.InvalidArgument, "order_items[3]: "+reason)

	item.Settings.AllowMissingGlyphs, sheets.Settings.AllowMissingGlyphs = true, true
	resp := call(t, c, item)
	want := []*renderv1.PreflightWarning{{Code: "missing_glyphs", Layer: "layers[0]", Message: `no font has the characters "\ue000": they print as nothing`}}
	if len(resp.Files) != 2 || len(resp.Warnings) != 1 || !proto.Equal(resp.Warnings[0], want[0]) {
		t.Errorf("allowed: %d files, warnings %v; want a PDF, a PNG and %v", len(resp.Files), resp.Warnings, want)
	}
	if resp := call(t, c, sheets); len(resp.Files) != 1 || resp.Files[0].PageCount != 1 {
		t.Errorf("allowed, sheets: %v", resp.Files)
	}
	sheets.Settings.MinEffectivePpi = 0 // no preflight: the sheets' drawing allows it too
	if resp := call(t, c, sheets); len(resp.Files) != 1 {
		t.Errorf("allowed, sheets without limits: %v", resp.Files)
	}
}
