package webhooks

import (
	"testing"
	"time"
)

// TestBreakerPausesAndProbes: the 5th failure in a row pauses the endpoint
// for Pause; during the pause deliveries are held until after it; then one
// goes as the probe while the others wait; a failed probe doubles the pause
// up to MaxPause; failures of attempts begun before the pause change
// nothing.
func TestBreakerPausesAndProbes(t *testing.T) {
	b := breaker{DefaultLimits}
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	var c Circuit
	for i := 1; i <= 4; i++ {
		c.Failures = i
		if c = b.failed(c, false, now); c.OpenUntil != nil {
			t.Fatalf("paused after %d failures", i)
		}
		if hold, probe := b.check(c, now); !hold.IsZero() || probe {
			t.Fatalf("after %d failures: hold %v, probe %v; want to go", i, hold, probe)
		}
	}
	c.Failures = 5
	c = b.failed(c, false, now)
	if c.OpenUntil == nil || !c.OpenUntil.Equal(now.Add(30*time.Second)) || c.OpenFor != 30*time.Second {
		t.Fatalf("after 5 failures: %+v, want paused 30 s", c)
	}
	straggler := c
	straggler.Failures = 6
	if after := b.failed(straggler, false, now.Add(time.Second)); after.OpenUntil != c.OpenUntil {
		t.Errorf("a failure during the pause moved it: %v", after.OpenUntil)
	}
	hold, probe := b.check(c, now.Add(time.Second))
	if probe || hold.Before(*c.OpenUntil) || !hold.Before(c.OpenUntil.Add(30*time.Second)) {
		t.Errorf("during the pause: hold %v, probe %v; want held within 30 s after %v", hold, probe, *c.OpenUntil)
	}
	end := c.OpenUntil.Add(time.Millisecond)
	if hold, probe := b.check(c, end); !hold.IsZero() || !probe {
		t.Errorf("after the pause: hold %v, probe %v; want the probe", hold, probe)
	}
	lease := end.Add(b.probeLease())
	c.ProbeUntil = &lease
	if hold, probe := b.check(c, end); probe || hold.Before(end.Add(minDefer)) || hold.After(lease.Add(time.Minute)) {
		t.Errorf("with a probe under way: hold %v, probe %v; want held a little", hold, probe)
	}
	for _, want := range []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 10 * time.Minute, 10 * time.Minute} {
		c.Failures++
		c = b.failed(c, true, end)
		if c.OpenFor != want || !c.OpenUntil.Equal(end.Add(want)) || c.ProbeUntil != nil {
			t.Fatalf("after a failed probe: %+v, want paused %v", c, want)
		}
	}
}

// TestBreakerProbeAfterReset: a probe that fails once a straggler's success
// has cleared the circuit counts as one failure, not a pause.
func TestBreakerProbeAfterReset(t *testing.T) {
	b := breaker{DefaultLimits}
	if c := b.failed(Circuit{Failures: 1}, true, time.Now()); c.OpenUntil != nil {
		t.Errorf("paused: %+v", c)
	}
}
