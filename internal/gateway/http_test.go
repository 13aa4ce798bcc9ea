package gateway_test

// The gateway as a client meets it over HTTP, in front of services that
// fail: the gRPC code of each error as its HTTP status, a panic, the body
// limit without a declared length, a body cut short, plain-text errors of
// the handlers beside the API, and what the request checks refuse.

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/platen-print/platen/internal/gateway"
)

// services stands for the gRPC side: every call fails with err, or panics
// when panics is set.
type services struct {
	err    atomic.Value // error
	panics atomic.Bool
	calls  atomic.Int64
}

func (s *services) Invoke(context.Context, string, any, any, ...grpc.CallOption) error {
	s.calls.Add(1)
	if s.panics.Load() {
		panic("a service's bug")
	}
	return s.err.Load().(error)
}

func (s *services) NewStream(context.Context, *grpc.StreamDesc, string, ...grpc.CallOption) (grpc.ClientStream, error) {
	return nil, status.Error(codes.Unimplemented, "no streams")
}

// serve starts the gateway as platen serve mounts it, with a handler beside
// the API at /beside/, and returns its URL and metrics.
func serve(t *testing.T, beside http.Handler) (string, *services, *prometheus.Registry) {
	t.Helper()
	svc := &services{}
	svc.err.Store(status.Error(codes.NotFound, "order not found"))
	reg := prometheus.NewRegistry()
	g, err := gateway.New(context.Background(), svc, gateway.Options{Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	if beside != nil {
		mux.Handle("/beside/", beside)
	}
	mux.Handle("/", g)
	srv := httptest.NewUnstartedServer(g.Observe(g.CheckRequest(mux)))
	srv.Listener = gateway.Listener(srv.Listener)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL, svc, reg
}

// errorBody is the API's error body.
type errorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Details []struct {
		FieldViolations []struct {
			Field string `json:"field"`
		} `json:"field_violations"`
	} `json:"details"`
}

func do(t *testing.T, req *http.Request) (*http.Response, errorBody) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var body errorBody
	if resp.StatusCode >= 400 {
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s %s: %d with Content-Type %q: %s", req.Method, req.URL, resp.StatusCode, ct, raw)
		}
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("%s %s: %d with a body that is not the JSON error: %s", req.Method, req.URL, resp.StatusCode, raw)
		}
	}
	return resp, body
}

func get(t *testing.T, url string) (*http.Response, errorBody) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return do(t, req)
}

// TestServiceErrorsAsHTTP: each gRPC code a service answers is the HTTP
// status the API gives it, with the code and message in the body,
// and the headers a client acts on: WWW-Authenticate on 401, Retry-After
// on 429.
func TestServiceErrorsAsHTTP(t *testing.T) {
	url, svc, _ := serve(t, nil)
	for _, tc := range []struct {
		code   codes.Code
		status int
		header string
	}{
		{codes.InvalidArgument, 400, ""},
		{codes.FailedPrecondition, 400, ""},
		{codes.OutOfRange, 400, ""},
		{codes.Unauthenticated, 401, "WWW-Authenticate: Bearer realm=\"platen\""},
		{codes.PermissionDenied, 403, ""},
		{codes.NotFound, 404, ""},
		{codes.AlreadyExists, 409, ""},
		{codes.Aborted, 409, ""},
		{codes.ResourceExhausted, 429, "Retry-After: 1"},
		{codes.Canceled, 499, ""},
		{codes.Internal, 500, ""},
		{codes.Unimplemented, 501, ""},
		{codes.Unavailable, 503, ""},
		{codes.DeadlineExceeded, 504, ""},
	} {
		t.Run(tc.code.String(), func(t *testing.T) {
			svc.err.Store(status.Error(tc.code, "because "+tc.code.String()))
			resp, body := get(t, url+"/api/v1/orders/o-1")
			if resp.StatusCode != tc.status || body.Code != int(tc.code) || body.Message != "because "+tc.code.String() {
				t.Errorf("%d %+v, want %d with code %d", resp.StatusCode, body, tc.status, tc.code)
			}
			if name, value, ok := strings.Cut(tc.header, ": "); ok && resp.Header.Get(name) != value {
				t.Errorf("%s: %q, want %q", name, resp.Header.Get(name), value)
			}
		})
	}
}

// TestPanicIsA500: a service that panics answers that request 500 with the
// JSON error and its request id, counted in the metrics; the server goes
// on serving.
func TestPanicIsA500(t *testing.T) {
	url, svc, reg := serve(t, nil)
	svc.panics.Store(true)
	resp, body := get(t, url+"/api/v1/orders/o-1")
	if resp.StatusCode != 500 || body.Code != int(codes.Internal) || body.Message != "internal error" {
		t.Errorf("a panic: %d %+v, want 500 internal error", resp.StatusCode, body)
	}
	if resp.Header.Get("X-Request-Id") == "" {
		t.Error("a panic's answer has no X-Request-Id")
	}
	if n := counted(t, reg, "GET", "500"); n != 1 {
		t.Errorf("metrics counted %v panics as 500", n)
	}
	svc.panics.Store(false)
	if resp, _ := get(t, url+"/api/v1/orders/o-1"); resp.StatusCode != 404 {
		t.Errorf("after the panic: %d, want the service's 404", resp.StatusCode)
	}
}

// counted is platen_http_requests_total for method and code, every route.
func counted(t *testing.T, reg *prometheus.Registry, method, code string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	n := 0.0
	for _, f := range families {
		if f.GetName() != "platen_http_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["method"] == method && labels["code"] == code {
				n += m.GetCounter().GetValue()
			}
		}
	}
	return n
}

// TestMadeUpMethodsShareALabel: a client cannot mint metric series with
// methods of its own: they are all counted as OTHER.
func TestMadeUpMethodsShareALabel(t *testing.T) {
	url, _, reg := serve(t, nil)
	for _, method := range []string{"BREW", "PROPFIND"} {
		req, err := http.NewRequest(method, url+"/api/v1/orders/o-1", nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp, _ := do(t, req); resp.StatusCode != 405 {
			t.Errorf("%s: %d, want 405", method, resp.StatusCode)
		}
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	other := 0.0
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "method" && (l.GetValue() == "BREW" || l.GetValue() == "PROPFIND") {
					t.Errorf("%s has a series with method %s", f.GetName(), l.GetValue())
				}
				if f.GetName() == "platen_http_requests_total" && l.GetName() == "method" && l.GetValue() == "OTHER" {
					other += m.GetCounter().GetValue()
				}
			}
		}
	}
	if other != 2 {
		t.Errorf("%v requests counted as OTHER, want 2", other)
	}
}

// TestBodyLimitWithoutLength: a body sent without a Content-Length
// (chunked) is held to the 8 MiB limit as it arrives: past it, 413, the
// service never called and the rest of the body never read (a client
// streaming 64 MiB has the server read about 8); just under it, the body
// is read and decoded.
func TestBodyLimitWithoutLength(t *testing.T) {
	url, svc, _ := serve(t, nil)
	for _, tc := range []struct {
		name   string
		size   int
		status int
	}{
		{"far over", 64 << 20, 413},
		{"just over", gateway.MaxBodyBytes + 1, 413},
		{"just under", gateway.MaxBodyBytes - 100, 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := svc.calls.Load()
			note := strings.Repeat("x", tc.size-len(`{"note":""}`))
			body := &countingReader{r: io.MultiReader(strings.NewReader(`{"note":"`+note), strings.NewReader(`"}`))}
			req, err := http.NewRequest("POST", url+"/api/v1/orders", body)
			if err != nil {
				t.Fatal(err)
			}
			req.ContentLength = -1 // sent chunked
			req.Header.Set("Content-Type", "application/json")
			resp, errBody := do(t, req)
			if resp.StatusCode != tc.status {
				t.Fatalf("%d %+v, want %d", resp.StatusCode, errBody, tc.status)
			}
			if called := svc.calls.Load() > before; called != (tc.status != 413) {
				t.Errorf("service called: %v", called)
			}
			if sent := body.n.Load(); tc.size > 32<<20 && sent > 32<<20 {
				t.Errorf("the server read %d MiB of a %d MiB body past the limit", sent>>20, tc.size>>20)
			}
		})
	}
}

// countingReader counts what the client sent of a body.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// TestBodyCutShort: a body that ends before its declared length is a 400
// saying the body could not be read, and reaches no service.
func TestBodyCutShort(t *testing.T) {
	url, svc, _ := serve(t, nil)
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	_, err = io.WriteString(conn, "POST /api/v1/orders HTTP/1.1\r\nHost: platen\r\nContent-Type: application/json\r\n"+
		"Content-Length: 100\r\n\r\n{\"store_id\":")
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body errorBody
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 400 || body.Message != "could not read the request body" {
		t.Errorf("%d %+v, want 400 could not read the request body", resp.StatusCode, body)
	}
	if n := svc.calls.Load(); n != 0 {
		t.Errorf("%d service calls", n)
	}
}

// TestPlainErrorsBesideTheAPI: an error a handler beside the API answers in
// plain text (http.Error, as file serving does) reaches the client as the
// JSON error, its gRPC code the HTTP status's, its text the message.
func TestPlainErrorsBesideTheAPI(t *testing.T) {
	url, _, _ := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/beside/"))
		http.Error(w, "the reason", code)
	}))
	for path, want := range map[string]codes.Code{
		"401": codes.Unauthenticated, "403": codes.PermissionDenied, "404": codes.NotFound,
		"409": codes.AlreadyExists, "416": codes.OutOfRange, "429": codes.ResourceExhausted,
		"500": codes.Internal, "502": codes.Internal, "503": codes.Unavailable,
		"504": codes.DeadlineExceeded, "418": codes.InvalidArgument,
	} {
		resp, body := get(t, url+"/beside/"+path)
		if got := resp.Status[:3]; got != path || body.Code != int(want) || body.Message != "the reason" {
			t.Errorf("%s: %s %+v, want code %d (%v) and the handler's text", path, resp.Status, body, want, want)
		}
	}
}

// TestRequestChecks: a query that does not decode, or holds NUL, is a 400
// naming the query before any route; a path with a trailing slash is taken
// as sent and routed, not refused as unclean.
func TestRequestChecks(t *testing.T) {
	url, svc, _ := serve(t, nil)
	for _, query := range []string{"page_size=%zz", "%00=1", "a=%00"} {
		resp, body := get(t, url+"/api/v1/orders?"+query)
		if resp.StatusCode != 400 || len(body.Details) != 1 || len(body.Details[0].FieldViolations) != 1 || body.Details[0].FieldViolations[0].Field != "query" {
			t.Errorf("?%s: %d %+v, want 400 naming the query", query, resp.StatusCode, body)
		}
	}
	if n := svc.calls.Load(); n != 0 {
		t.Errorf("%d service calls", n)
	}
	resp, body := get(t, url+"/api/v1/orders/")
	if resp.StatusCode != 404 || body.Code != int(codes.NotFound) || body.Message != "order not found" {
		t.Errorf("a trailing slash: %d %+v, want it routed (the service's 404)", resp.StatusCode, body)
	}
}
