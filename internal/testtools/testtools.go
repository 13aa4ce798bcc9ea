// Package testtools finds the programs some tests drive (poppler-utils to
// read PDFs, Chromium's headless shell and Node.js for the panel's browser tests). Outside
// CI a missing program skips the test with what to install; where
// PLATEN_TEST_REQUIRE_TOOLS is set (.ci/run sets it) it fails the test, so
// that CI never passes without running them.
package testtools

import (
	"image"
	"image/png"
	"os"
	"os/exec"
	"testing"
)

// RequireEnv is the variable that turns a missing program into a failure.
const RequireEnv = "PLATEN_TEST_REQUIRE_TOOLS"

// Need skips (or, where required, fails) t unless every tool is on PATH;
// pkg is the Debian package that has them.
func Need(t testing.TB, pkg string, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			Missing(t, tool+" is not installed (Debian package "+pkg+"; `make install-test-tools` installs every one)")
		}
	}
}

// Missing skips t with why, or fails it where the tools are required.
func Missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv(RequireEnv) != "" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// ReadPNG decodes the PNG file at path, failing t when it cannot.
func ReadPNG(t testing.TB, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}
