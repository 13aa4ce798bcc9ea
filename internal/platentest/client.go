package platentest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
)

// Response is an HTTP answer with its body parsed as JSON.
type Response struct {
	Status int
	Header http.Header
	Raw    []byte
	// JSON is the parsed body (nil when the body is empty or not JSON).
	JSON any
}

// Object returns the body as a JSON object, failing the test otherwise.
func (r *Response) Object(t *testing.T) map[string]any {
	t.Helper()
	obj, ok := r.JSON.(map[string]any)
	if !ok {
		t.Fatalf("body is not a JSON object (status %d): %s", r.Status, r.Raw)
	}
	return obj
}

// Do sends method path with an optional JSON body (a string is sent as is,
// anything else is encoded) and the token, and parses the answer; it fails
// the test when the request cannot be sent, and when the exchange breaks
// the OpenAPI document (conformance.go). From a goroutine other than the
// test's own, use Try.
func (s *Server) Do(t *testing.T, method, path, token string, body any, headers ...string) *Response {
	t.Helper()
	r, problem, err := s.exchange(method, path, token, body, headers...)
	if err != nil {
		t.Fatal(err)
	}
	if problem != nil {
		t.Errorf("OpenAPI conformance: %s %s answered %d: %v", method, path, r.Status, problem)
	}
	return r
}

// Try is Do that returns its error instead of failing the test, for
// goroutines that must not call t.Fatal; an answer the document does not allow fails the test
// that started the server, when it ends.
func (s *Server) Try(method, path, token string, body any, headers ...string) (*Response, error) {
	r, problem, err := s.exchange(method, path, token, body, headers...)
	if problem != nil {
		s.conformanceMu.Lock()
		s.conformanceProblems = append(s.conformanceProblems, fmt.Sprintf("%s %s answered %d: %v", method, path, r.Status, problem))
		s.conformanceMu.Unlock()
	}
	return r, err
}

// exchange sends the request, reads the answer, and checks both against the
// OpenAPI document.
func (s *Server) exchange(method, path, token string, body any, headers ...string) (*Response, error, error) {
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	case []byte:
		raw = b
	default:
		var err error
		raw, err = json.Marshal(b)
		if err != nil {
			return nil, nil, fmt.Errorf("encode body: %w", err)
		}
	}
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.BaseURL+path, reader)
	if err != nil {
		return nil, nil, fmt.Errorf("new request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: read body: %w", method, path, err)
	}
	out := &Response{Status: resp.StatusCode, Header: resp.Header, Raw: data}
	if len(data) > 0 {
		_ = json.Unmarshal(data, &out.JSON)
	}
	return out, s.checkConformance(req, raw, resp, data), nil
}

// ErrorBody checks that r is an API error: the status, a JSON body with
// a numeric code and a message, and details; it returns the field names the
// BadRequest details list.
func ErrorBody(t *testing.T, r *Response, status int) (message string, fields []string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d; body %s", r.Status, status, r.Raw)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	obj := r.Object(t)
	if _, ok := obj["code"].(float64); !ok {
		t.Errorf("error body has no numeric code: %s", r.Raw)
	}
	message, _ = obj["message"].(string)
	if message == "" {
		t.Errorf("error body has no message: %s", r.Raw)
	}
	details, ok := obj["details"].([]any)
	if !ok {
		t.Fatalf("error body has no details array: %s", r.Raw)
	}
	for _, d := range details {
		dm, _ := d.(map[string]any)
		violations, _ := dm["field_violations"].([]any)
		for _, v := range violations {
			if f, ok := v.(map[string]any)["field"].(string); ok {
				fields = append(fields, f)
			}
		}
	}
	return message, fields
}

// GRPC dials the server's gRPC port, closed when the test ends.
func (s *Server) GRPC(t *testing.T) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(s.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// Bearer returns ctx carrying token as gRPC authorization metadata.
func Bearer(ctx context.Context, token string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
}
