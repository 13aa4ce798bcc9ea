package platentest

import (
	"fmt"
	"runtime"
	"testing"
	"testing/synctest"
	"time"
)

// TestWaitPrintEndsEarly: a print that ends in a status not wanted fails
// the wait at once, naming it, rather than when the time is up; with no
// status wanted, either end is the answer; a print that stays processing
// fails when the time is up. On synctest's clock, with the answers of a
// print scripted.
func TestWaitPrintEndsEarly(t *testing.T) {
	cases := []struct {
		name    string
		answers []string
		want    []string
		failure string
		after   time.Duration
	}{
		{"ended unwanted", []string{"received", "processing", PrintFailed}, []string{PrintReady}, "print of 1-1 ended processingfailed, want [ready]: map[status:processingfailed]", 3 * time.Millisecond},
		{"either end", []string{"received", PrintFailed}, nil, "", time.Millisecond},
		{"a status on the way", []string{"received", "processing"}, []string{"processing"}, "", time.Millisecond},
		{"never ends", []string{"processing"}, nil, "print of 1-1 still processing after 1m0s, want [ready processingfailed]", time.Minute},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := &fatalRecorder{TB: t}
				asked := 0
				get := func() map[string]any {
					status := c.answers[min(asked, len(c.answers)-1)]
					asked++
					return map[string]any{"status": status}
				}
				start := time.Now()
				var got map[string]any
				finished := make(chan struct{})
				go func() {
					defer close(finished) // after a Fatalf too
					got = waitPrint(rec, time.Minute, "1-1", c.want, nil, get)
				}()
				<-finished
				took := time.Since(start)
				if rec.msg != c.failure {
					t.Errorf("failed with %q, want %q", rec.msg, c.failure)
				}
				if took != c.after {
					t.Errorf("answered after %v, want %v", took, c.after)
				}
				if c.failure == "" {
					if got["status"] != c.answers[len(c.answers)-1] {
						t.Errorf("returned %v, want the last answer", got)
					}
				}
			})
		})
	}
}

// fatalRecorder keeps a Fatalf's message and ends the goroutine, as
// testing.T's does, without failing the real test.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
