package canvaspdf_test

import (
	"os/exec"
	"testing"

	"github.com/platen-print/platen/internal/testtools"
)

// TestUpstreamPatch: pdf.go, util.go and writer.go are the upstream files
// UPSTREAM names with upstream.patch applied, so that the patch records
// every change made to them and moving to a new upstream can re-apply it.
func TestUpstreamPatch(t *testing.T) {
	testtools.Need(t, "patch", "patch")
	testtools.Need(t, "diffutils", "diff")
	out, err := exec.Command("./upstream.sh", "check").CombinedOutput()
	if err != nil {
		t.Fatalf("./upstream.sh check: %v\n%s", err, out)
	}
}
