package rendersvc

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"

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
