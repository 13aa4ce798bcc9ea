package gateway

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Only net/http's own refusals are rewritten, never a handler's answer,
// even a plain-text 400 that closes the connection.
func TestRewriteRefusalLeavesHandlersAlone(t *testing.T) {
	rec := httptest.NewRecorder()
	rec.Header().Set("Connection", "close")
	http.Error(rec, "400 Bad Request", http.StatusBadRequest)
	var b bytes.Buffer
	if err := rec.Result().Write(&b); err != nil {
		t.Fatal(err)
	}
	if _, ok := rewriteRefusal(b.Bytes()); ok {
		t.Errorf("a handler's answer was taken for net/http's refusal:\n%s", b.Bytes())
	}
	if _, ok := rewriteRefusal([]byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")); ok {
		t.Error("a 200 was rewritten")
	}
}

func TestRewriteRefusal(t *testing.T) {
	for _, tc := range []struct {
		refusal string
		status  int
		code    int
		message string
	}{
		{"HTTP/1.1 400 Bad Request: invalid header name" + refusalHeaders + "400 Bad Request: invalid header name",
			400, 3, "invalid header name"},
		{"HTTP/1.1 501 Not Implemented" + refusalHeaders + "Unsupported transfer encoding", 501, 12, "unsupported transfer encoding"},
		{expectationStart + "Connection: close\r\nDate: Mon, 23 Nov 2026 16:00:00 GMT\r\nContent-Length: 0\r\n\r\n",
			417, 3, "the Expect header can only be 100-continue"},
	} {
		answer, ok := rewriteRefusal([]byte(tc.refusal))
		if !ok {
			t.Errorf("not recognised: %q", tc.refusal)
			continue
		}
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(answer)), nil)
		if err != nil {
			t.Fatalf("%q: %v", answer, err)
		}
		body, _ := io.ReadAll(resp.Body)
		var e struct {
			Code    int
			Message string
			Details []any
		}
		if err := json.Unmarshal(body, &e); err != nil || resp.StatusCode != tc.status || e.Code != tc.code ||
			e.Message != tc.message || e.Details == nil || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("answer %q, want %d code %d %q", answer, tc.status, tc.code, tc.message)
		}
	}
}
