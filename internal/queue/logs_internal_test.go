package queue

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestQuietLoggerKeepsQuietWhenDerived: River derives its loggers (With,
// WithGroup) before it logs; the notice must stay quiet through them, and
// what they add must reach the line.
func TestQuietLoggerKeepsQuietWhenDerived(t *testing.T) {
	var logs bytes.Buffer
	base := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	derived := riverLogger(base).With("client", "c1").WithGroup("river")

	derived.Info(pollOnlyMessage, "attempt", 1)
	if logs.Len() != 0 {
		t.Fatalf("the poll-only notice showed at INFO through a derived logger:\n%s", logs.String())
	}
	derived.Info("River client started", "queue", "renders")
	line := logs.String()
	for _, want := range []string{`msg="River client started"`, "client=c1", "river.queue=renders"} {
		if !strings.Contains(line, want) {
			t.Errorf("the derived logger's line lacks %s:\n%s", want, line)
		}
	}
}

func TestQuietLoggerOfNilIsNil(t *testing.T) {
	if riverLogger(nil) != nil {
		t.Fatal("riverLogger(nil) is not nil: River would not use its own default")
	}
}
