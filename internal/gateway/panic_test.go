package gateway_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// A panic is logged with the stack of the goroutine that panicked, so that
// the log shows where the bug is, not only what it said.
func TestPanicIsLoggedWithItsStack(t *testing.T) {
	logs := captureLogs(t)
	url, svc, _ := serve(t, nil)
	svc.panics.Store(true)
	if resp, _ := get(t, url+"/api/v1/orders/o-1"); resp.StatusCode != 500 {
		t.Fatalf("a panic: %d, want 500", resp.StatusCode)
	}
	var found bool
	for _, rec := range logs.records(t) {
		if rec["msg"] != "panic serving request" {
			continue
		}
		found = true
		if rec["panic"] != "a service's bug" {
			t.Errorf("panic %v, want the panic's value", rec["panic"])
		}
		// The frame that panicked: the stand-in for the gRPC side.
		if stack, _ := rec["stack"].(string); !strings.Contains(stack, "(*services).Invoke") {
			t.Errorf("the record's stack does not show where the panic happened:\n%s", stack)
		}
	}
	if !found {
		t.Fatalf("no record of the panic in the log:\n%s", logs.text())
	}
}

// A handler that panics with http.ErrAbortHandler asks net/http to abort
// the response: the client sees the connection end, not a 500 answer; a
// response already under way is cut short, not ended as if complete.
func TestAbortHandlerAbortsTheResponse(t *testing.T) {
	logs := captureLogs(t)
	url, _, reg := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/beside/partial" {
			w.Header().Set("Content-Type", "application/pdf")
			_, _ = w.Write([]byte("%PDF-1.7 the start of a file"))
			http.NewResponseController(w).Flush()
		}
		panic(http.ErrAbortHandler)
	}))

	resp, err := http.Get(url + "/beside/at-once")
	if err == nil {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Errorf("an aborted response was answered %d %s", resp.StatusCode, body)
	}

	resp, err = http.Get(url + "/beside/partial")
	if err != nil {
		t.Fatalf("the response's start: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil {
		t.Errorf("a response aborted halfway read as complete: %d %q", resp.StatusCode, body)
	}

	if n := counted(t, reg, "GET", "500"); n != 0 {
		t.Errorf("metrics counted %v aborted responses as 500", n)
	}
	for _, rec := range logs.records(t) {
		if rec["msg"] == "panic serving request" {
			t.Errorf("an abort was logged as a panic: %v", rec)
		}
	}
}

// logBuffer holds what slog's default logger wrote during a test.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// records are the JSON records logged so far.
func (l *logBuffer) records(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.text()), "\n") {
		if line == "" {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("a log line is not JSON: %q", line)
		}
		out = append(out, rec)
	}
	return out
}

// captureLogs sends slog's default logger to a buffer until the test ends.
func captureLogs(t *testing.T) *logBuffer {
	logs := &logBuffer{}
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(logs, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	return logs
}
