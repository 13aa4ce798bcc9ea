package queue

import (
	"context"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// inFlight knows which jobs this process is working, and when it last
// stopped working the others. As River's worker middleware it wraps every
// Work call, so a job the database shows `running` under this process's
// name that is not being worked here is one whose outcome was never
// recorded (see reclaimer).
type inFlight struct {
	river.MiddlewareDefaults

	mu      sync.Mutex
	working map[int64]int       // job id → Work calls under way (one, but a count costs nothing)
	ended   map[int64]time.Time // job id → when its last Work call here returned
}

var _ rivertype.WorkerMiddleware = (*inFlight)(nil)

func newInFlight() *inFlight {
	return &inFlight{working: map[int64]int{}, ended: map[int64]time.Time{}}
}

// Work records the job as worked for as long as doInner runs.
func (f *inFlight) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	f.begin(job.ID)
	defer f.end(job.ID)
	return doInner(ctx)
}

func (f *inFlight) begin(id int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.working[id]++
	delete(f.ended, id)
}

func (f *inFlight) end(id int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.working[id]--; f.working[id] <= 0 {
		delete(f.working, id)
		f.ended[id] = time.Now()
	}
}

// state says whether the job is being worked here, and if not, when its
// Work here last ended (zero when it never ran here).
func (f *inFlight) state(id int64) (working bool, ended time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.working[id] > 0, f.ended[id]
}

// forget drops the end times of jobs not in keep that ended before
// cutoff: their completion was recorded (they are no longer running in the
// database as of a read that began at cutoff).
func (f *inFlight) forget(keep map[int64]bool, cutoff time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id, at := range f.ended {
		if !keep[id] && at.Before(cutoff) {
			delete(f.ended, id)
		}
	}
}
