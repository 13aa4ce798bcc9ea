package pdfxtest

import (
	"bytes"
	"fmt"
)

// WithoutOutputIntent returns pdf with its catalog's OutputIntents key
// renamed to one no reader knows (same length, so the cross-reference
// offsets stay right). Poppler draws a file that has one output intent
// through that intent's profile, as a soft proof of the press (#ff0000
// shows as (238, 36, 36) under FOGRA39, and 22.12 does so to shadings
// most of all); tests that compare what Platen drew with another
// renderer's sRGB take it out. DeviceCMYK is not affected: poppler shows
// it by its own conversion, with or without the intent.
func WithoutOutputIntent(pdf []byte) ([]byte, error) {
	key := []byte("/OutputIntents")
	if n := bytes.Count(pdf, key); n != 1 {
		return nil, fmt.Errorf("the PDF names OutputIntents %d times, want once", n)
	}
	return bytes.Replace(pdf, key, []byte("/OutputIntentX"), 1), nil
}
