package queue

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// This file holds what Platen relies on of River beyond its documented
// API: its behaviour and its words in the version queue was checked
// against (TestRiverVersionChecked names them all, with the SQL that reads
// River's tables in reclaim.go, metrics.go and queue.go). The rest of
// Platen asks here rather than knowing it.

// RiverRescueError is the error River's rescuer records for an attempt it
// ended: the job stayed running longer than RescueAfter, its process
// presumably gone.
const RiverRescueError = "Stuck job rescued by JobRescuer"

// RescuedByRiver reports whether e is the error River's rescuer recorded
// for an attempt it ended, because the job stayed running past RescueAfter
// (its process stopped, or hung), rather than an error the job returned.
func RescuedByRiver(e rivertype.AttemptError) bool {
	return e.Error == RiverRescueError
}

// Postpone, returned by a worker, ends this run of the job and has it run
// again after d without counting the run as an attempt: River takes back
// the attempt its fetch added (JobSnooze's documentation says it raises
// MaxAttempts instead; the code takes back the attempt), and counts the
// snooze in the job's metadata (see Snoozes).
func Postpone(d time.Duration) error {
	return river.JobSnooze(d)
}

// Snoozes is how many times job was postponed (see Postpone): River keeps
// the count in the job's metadata under "snoozes".
func Snoozes(job *rivertype.JobRow) int {
	var m struct {
		Snoozes int `json:"snoozes"`
	}
	if len(job.Metadata) == 0 || json.Unmarshal(job.Metadata, &m) != nil {
		return 0
	}
	return m.Snoozes
}

// finishedStates are the states of a job that will not run again unless
// asked to (River's finalized states).
var finishedStates = []rivertype.JobState{rivertype.JobStateCompleted, rivertype.JobStateCancelled, rivertype.JobStateDiscarded}

// Finished reports whether job has ended for good: completed, cancelled or
// discarded.
func Finished(job *rivertype.JobRow) bool {
	return slices.Contains(finishedStates, job.State)
}
