package prints

import (
	"sync"
	"time"
)

// maxFailures bounds the failures remembered. Past it, an expired one
// goes, else any: forgetting a failure only costs one more render, which
// the line bounds.
const maxFailures = 10_000

// failures remembers the previews that could not be made, keyed like the
// file store's previews, so that a page showing them does not render
// them again on every load.
type failures struct {
	mu   sync.Mutex
	seen map[string]failure
}

type failure struct {
	err   *Unavailable
	until time.Time
}

func (f *failures) get(key string, now time.Time) *Unavailable {
	f.mu.Lock()
	defer f.mu.Unlock()
	got, ok := f.seen[key]
	if !ok {
		return nil
	}
	if now.After(got.until) {
		delete(f.seen, key)
		return nil
	}
	return got.err
}

func (f *failures) put(key string, err *Unavailable, until time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.seen == nil {
		f.seen = map[string]failure{}
	}
	if len(f.seen) >= maxFailures {
		f.evict(time.Now())
	}
	f.seen[key] = failure{err: err, until: until}
}

// evict drops the expired failures, or one when none has expired.
func (f *failures) evict(now time.Time) {
	dropped := false
	for key, got := range f.seen {
		if now.After(got.until) {
			delete(f.seen, key)
			dropped = true
		}
	}
	for key := range f.seen {
		if dropped {
			return
		}
		delete(f.seen, key)
		dropped = true
	}
}
