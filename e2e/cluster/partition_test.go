package cluster

import (
	"bytes"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"
)

// The silent partition: PostgreSQL's packets dropped, its connections
// left open, for dbSilentFor. Each call of a serve to the database waits
// at most --db-timeout (its default, dbTimeout), a new request first up
// to pingChecks on pooled connections; answerWithin adds a loaded
// machine's margin. A retry with a key whose request failed in the
// partition may still meet its lease within releaseWithin of the network's
// return (the key is released once the database answers).
const (
	dbSilentFor   = 12 * time.Second
	dbTimeout     = 5 * time.Second
	pingChecks    = 2 * time.Second
	answerWithin  = dbTimeout + pingChecks + 3*time.Second
	releaseWithin = 2 * time.Second
	// watchAfter is how long after the partition retries are watched.
	watchAfter = 15 * time.Second
)

// databaseSilent partitions PostgreSQL without a word, then heals it.
func databaseSilent(t *testing.T, c *cluster, ld *load) {
	ld.api.watch.begin()
	c.pgProxy.Silence()
	time.Sleep(dbSilentFor) // the fault's length
	c.pgProxy.Up()
	ld.api.watch.heal()
}

// seen is one exchange the watch recorded.
type seen struct {
	start      time.Time
	took       time.Duration
	what, key  string
	status     int
	retryAfter string
	inProgress bool // a 409 "still in progress"
	err        error
}

// partitionWatch records the exchanges sent from the partition's start
// until watchAfter after it healed.
type partitionWatch struct {
	mu           sync.Mutex
	from, healed time.Time
	seen         []seen
}

func (w *partitionWatch) begin() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.from = time.Now()
}

func (w *partitionWatch) heal() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.healed = time.Now()
}

// note records an exchange begun at start, if the watch is on then.
func (w *partitionWatch) note(start time.Time, method, path, key string, a answer, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.from.IsZero() || start.Before(w.from) || (!w.healed.IsZero() && start.After(w.healed.Add(watchAfter))) {
		return
	}
	w.seen = append(w.seen, seen{
		start: start, took: time.Since(start), what: method + " " + path, key: key, status: a.status,
		retryAfter: a.header.Get("Retry-After"), err: err,
		inProgress: a.status == http.StatusConflict && bytes.Contains(a.body, []byte("still in progress")),
	})
}

// row: during the partition no answer was a 500 and none took longer than
// answerWithin, every 503 said Retry-After, and a key whose request failed
// in it was free again soon after it healed.
func (w *partitionWatch) row() row {
	w.mu.Lock()
	defer w.mu.Unlock()
	var problems []string
	failedIn := map[string]bool{}
	unavailable, during, stuck := 0, 0, 0
	var slowest time.Duration
	for _, s := range w.seen {
		in := s.start.Before(w.healed)
		if in {
			during++
			slowest = max(slowest, s.took)
		}
		switch {
		case s.err != nil && in:
			problems = append(problems, fmt.Sprintf("%s: no answer after %s: %v", s.what, s.took.Round(time.Millisecond), s.err))
		case s.status == http.StatusInternalServerError:
			problems = append(problems, fmt.Sprintf("%s: 500", s.what))
		case s.status == http.StatusServiceUnavailable && s.retryAfter == "":
			problems = append(problems, fmt.Sprintf("%s: 503 without Retry-After", s.what))
		case s.status == http.StatusGatewayTimeout:
			problems = append(problems, fmt.Sprintf("%s: 504", s.what))
		}
		if in && s.took > answerWithin {
			problems = append(problems, fmt.Sprintf("%s answered %d after %s, want within %s", s.what, s.status, s.took.Round(time.Millisecond), answerWithin))
		}
		if s.status == http.StatusServiceUnavailable {
			if in {
				unavailable++
			}
			if s.key != "" {
				failedIn[s.key] = true
			}
		}
		if s.inProgress && failedIn[s.key] && s.start.After(w.healed.Add(releaseWithin)) {
			stuck++
			problems = append(problems, fmt.Sprintf("%s with key %s: 409 still in progress %s after the partition", s.what, s.key, s.start.Sub(w.healed).Round(time.Millisecond)))
		}
	}
	if during == 0 {
		problems = append(problems, "no request was sent during the partition")
	}
	return row{"silent partition: no 500 or hang, 503 with Retry-After, keys freed after it", len(problems) == 0,
		summary(fmt.Sprintf("%d answers during the partition, %d of them 503, the slowest after %s; %d retries met a held key",
			during, unavailable, slowest.Round(time.Millisecond), stuck), problems)}
}
