package renderjobs

import (
	"testing"

	"github.com/riverqueue/river/rivertype"

	"github.com/platen-print/platen/internal/queue"
)

func TestInterruptionsCountRunsThatEndedWithoutAnAnswer(t *testing.T) {
	failed := rivertype.AttemptError{Error: "rpc error: code = Unavailable desc = image server"}
	rescued := rivertype.AttemptError{Error: queue.RiverRescueError}
	reclaimed := rivertype.AttemptError{Error: queue.ReclaimedError}
	for _, tc := range []struct {
		name    string
		attempt int
		errors  []rivertype.AttemptError
		want    int
	}{
		{"the first run", 1, nil, 0},
		{"a retry after a failure", 2, []rivertype.AttemptError{failed}, 0},
		{"after a restart made it available", 2, nil, 1},
		{"after the rescuer", 2, []rivertype.AttemptError{rescued}, 1},
		{"after a restart and the rescuer", 4, []rivertype.AttemptError{failed, rescued}, 2},
		{"after a run whose outcome was reclaimed", 2, []rivertype.AttemptError{reclaimed}, 0},
	} {
		job := &rivertype.JobRow{Attempt: tc.attempt, Errors: tc.errors}
		if got := Interruptions(job); got != tc.want {
			t.Errorf("%s: %d interruptions; want %d", tc.name, got, tc.want)
		}
	}
}
