// Package poppler runs Debian's poppler-utils (pdfinfo, pdftoppm,
// pdftotext, pdfimages, pdffonts) for the tests that check real PDFs: they
// fail, never skip, when a tool is missing, and `make test` installs them.
package poppler

import (
	"os/exec"
	"testing"
)

// Need fails the test unless every tool is installed.
func Need(t testing.TB, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed (Debian: poppler-utils); `make test` installs it", tool)
		}
	}
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
