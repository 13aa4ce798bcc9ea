package platentest

import (
	"bytes"
	"testing"

	"github.com/platen-print/platen/internal/iccprofile"
)

// CMYKProfile is a second CMYK output profile for tests: FOGRA39's with
// "Test press 1" for "Platen build" in its description, and no profile ID
// (the header's MD5, which would no longer match). The colours are
// FOGRA39's; its bytes and description are its own.
func CMYKProfile(t testing.TB) []byte {
	t.Helper()
	p := bytes.Clone(iccprofile.FOGRA39)
	i := bytes.Index(p, []byte("Platen build"))
	if i < 0 {
		t.Fatal("FOGRA39's description has changed: update platentest.CMYKProfile")
	}
	copy(p[i:], "Test press 1")
	clear(p[84:100])
	return p
}
