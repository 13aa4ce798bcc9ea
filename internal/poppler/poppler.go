// Package poppler runs Debian's poppler-utils (pdfinfo, pdftoppm,
// pdftotext, pdfimages, pdffonts) for the tests that check real PDFs; a
// missing tool skips them outside CI and fails them in CI (testtools).
package poppler

import (
	"os/exec"
	"testing"

	"github.com/platen-print/platen/internal/testtools"
)

// Need skips the test (fails it in CI) unless every tool is installed.
func Need(t testing.TB, tools ...string) {
	t.Helper()
	testtools.Need(t, "poppler-utils", tools...)
}

// Run runs a tool and returns its output, failing the test when it fails.
func Run(t testing.TB, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}
