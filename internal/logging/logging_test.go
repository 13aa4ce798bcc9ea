package logging

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"testing/slogtest"
)

// TestHandlerKeepsSlogsRules: the request-id handler passes the standard
// library's handler conformance test (attributes, groups, levels, times).
func TestHandlerKeepsSlogsRules(t *testing.T) {
	var buf bytes.Buffer
	slogtest.Run(t, func(t *testing.T) slog.Handler {
		buf.Reset()
		return New(&buf, slog.LevelInfo).Handler()
	}, func(t *testing.T) map[string]any {
		var line map[string]any
		if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
			t.Fatalf("not one JSON line: %v: %s", err, buf.Bytes())
		}
		return line
	})
}

// TestRequestIDOnEveryLine: a line logged with a request's context names
// the request, one without does not, and a line below the level is not
// written.
func TestRequestIDOnEveryLine(t *testing.T) {
	var buf bytes.Buffer
	logger := New(&buf, slog.LevelInfo).With("component", "render")
	id := NewRequestID()
	logger.InfoContext(WithRequestID(context.Background(), id), "rendered")
	logger.Info("idle")
	logger.DebugContext(WithRequestID(context.Background(), id), "hidden")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2: %s", len(lines), buf.String())
	}
	var first, second map[string]any
	if json.Unmarshal([]byte(lines[0]), &first) != nil || json.Unmarshal([]byte(lines[1]), &second) != nil {
		t.Fatalf("not JSON: %s", buf.String())
	}
	if first["request_id"] != id || first["component"] != "render" {
		t.Errorf("with a request: %v", first)
	}
	if _, ok := second["request_id"]; ok {
		t.Errorf("without a request: %v", second)
	}
}

// TestRequestIDsFitHeadersAndLogs: fresh ids are valid ids and differ; a
// client's id with a space, a control character, a newline (which could
// forge a log line) or beyond 128 bytes is not used.
func TestRequestIDsFitHeadersAndLogs(t *testing.T) {
	a, b := NewRequestID(), NewRequestID()
	if a == b || !ValidRequestID(a) || len(a) != 24 {
		t.Errorf("fresh ids %q and %q", a, b)
	}
	for _, id := range []string{"", "a b", "a\nb", "a\x7fb", "é", strings.Repeat("x", 129)} {
		if ValidRequestID(id) {
			t.Errorf("%q was taken as a request id", id)
		}
	}
	if !ValidRequestID(strings.Repeat("x", 128)) || !ValidRequestID("req-42_{ok}") {
		t.Error("a valid client id was refused")
	}
}
