package prints_test

import (
	"strings"
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

// TestChoicesSayWhatTheActionsDo: each state offers the actions that
// would change the print, and each says what it does to a print in that
// state.
func TestChoicesSayWhatTheActionsDo(t *testing.T) {
	for _, c := range []struct {
		family, status, state string
		want                  map[string][]string // action: what its words must say
	}{
		{"A", "ready", "ready", map[string][]string{
			"flag":   {"fails with your reason", "Its files are deleted", "webhook", "can be retried later"},
			"cancel": {"cancelled by the print shop", "Its files are deleted", "can be retried later"}}},
		{"A", "processingfailed", "failed", map[string][]string{
			"retry": {"queued to render again", "“received”"}, "flag": {"fails with your reason"}, "cancel": {"Family A has no cancelled status"}}},
		{"A", "processingfailed", "cancelled", map[string][]string{"retry": {"queued to render again"}}},
		{"B", "processing", "rendering", map[string][]string{
			"flag": {"“failed”", "Its render is stopped", "can be retried later"}, "cancel": {"cancelled for good", "Its render is stopped"}}},
		{"B", "failed", "flagged", map[string][]string{
			"retry": {"“processing”"}, "flag": {"fails with your reason"}, "cancel": {"cancelled for good"}}},
		{"B", "cancelled", "cancelled", map[string][]string{}},
	} {
		got := prints.Choices(c.family, c.status, c.state)
		if len(got) != len(c.want) {
			t.Errorf("%s %s (%s): choices %v, want %d", c.family, c.status, c.state, got, len(c.want))
		}
		for _, choice := range got {
			words, ok := c.want[choice.Action]
			if !ok {
				t.Errorf("%s %s (%s): %s is offered", c.family, c.status, c.state, choice.Action)
			}
			for _, w := range words {
				if !strings.Contains(choice.Says, w) {
					t.Errorf("%s %s (%s): %s says %q, want %q in it", c.family, c.status, c.state, choice.Action, choice.Says, w)
				}
			}
			if choice.Action == "cancel" && c.family == "B" && strings.Contains(choice.Says, "retried") {
				t.Errorf("Family B's cancel says it can be retried: %q", choice.Says)
			}
		}
	}
}
