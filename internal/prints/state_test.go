package prints_test

import (
	"testing"

	"github.com/platen-print/platen/internal/prints"
)

// TestStateReadsBothFamiliesAlike: each family's words, with what the
// store keeps beside them, read as one state.
func TestStateReadsBothFamiliesAlike(t *testing.T) {
	flagged, cancelled, started := prints.Stage{Stop: prints.StopFlagged}, prints.Stage{Stop: prints.StopCancelled}, prints.Stage{Started: true}
	for _, c := range []struct {
		family, status string
		stage          prints.Stage
		want           string
	}{
		{"A", "received", prints.Stage{}, "queued"},
		{"A", "processing", prints.Stage{}, "rendering"},
		{"A", "ready", prints.Stage{}, "ready"},
		{"A", "processingfailed", prints.Stage{}, "failed"},
		{"A", "processingfailed", flagged, "flagged"},
		{"A", "processingfailed", cancelled, "cancelled"},
		{"B", "processing", prints.Stage{}, "queued"},
		{"B", "processing", started, "rendering"},
		{"B", "ready", prints.Stage{}, "ready"},
		{"B", "failed", prints.Stage{}, "failed"},
		{"B", "failed", flagged, "flagged"},
		{"B", "cancelled", cancelled, "cancelled"},
		{"B", "cancelled", prints.Stage{}, "cancelled"},
	} {
		if got := prints.State(c.family, c.status, c.stage); got != c.want {
			t.Errorf("State(%s, %s, %+v) = %s, want %s", c.family, c.status, c.stage, got, c.want)
		}
	}
}
