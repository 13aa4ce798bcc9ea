package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"reflect"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"

	"github.com/platen-print/platen/internal/platentest"
)

// wantError checks a REST error answer: the HTTP status, the API's
// JSON body with its gRPC code and message, and the fields its
// BadRequest detail names (none when fields is empty).
func wantError(t *testing.T, r *platentest.Response, httpStatus int, code codes.Code, message string, fields ...string) {
	t.Helper()
	gotMessage, gotFields := platentest.ErrorBody(t, r, httpStatus)
	if got := r.Object(t)["code"]; got != float64(code) {
		t.Errorf("code %v, want %d (%v); body %s", got, code, code, r.Raw)
	}
	if gotMessage != message {
		t.Errorf("message %q, want %q", gotMessage, message)
	}
	if len(fields) == 0 {
		fields = nil
	}
	if !reflect.DeepEqual(gotFields, fields) {
		t.Errorf("field violations %q, want %q", gotFields, fields)
	}
}

// wantStatus checks a gRPC error: its code, message, and the field
// violations of its BadRequest detail (field: description).
func wantStatus(t *testing.T, err error, code codes.Code, message string, violations ...string) {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != code || st.Message() != message {
		t.Errorf("status %v %q, want %v %q", st.Code(), st.Message(), code, message)
	}
	var got []string
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			for _, v := range br.GetFieldViolations() {
				got = append(got, v.GetField()+": "+v.GetDescription())
			}
		}
	}
	if len(violations) == 0 {
		violations = nil
	}
	if !reflect.DeepEqual(got, violations) {
		t.Errorf("field violations %q, want %q", got, violations)
	}
}

// rawCodec sends a request's bytes exactly as given, so that a test can
// send what no generated client would, and reads the answer's bytes.
type rawCodec struct{}

func (rawCodec) Name() string { return "proto" }

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(v.([]byte))}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*(v.(*[]byte)) = data.Materialize()
	return nil
}

// invokeRaw calls method with the message bytes msg.
func invokeRaw(ctx context.Context, conn *grpc.ClientConn, method string, msg []byte) error {
	var reply []byte
	return conn.Invoke(ctx, method, msg, &reply, grpc.ForceCodecV2(rawCodec{}))
}

// rawHTTP sends request, bytes as given (no client tidies them), on a
// connection of its own, and parses the answer.
func rawHTTP(t *testing.T, srv *platentest.Server, request string) *platentest.Response {
	t.Helper()
	conn, err := net.Dial("tcp", srv.HTTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("read the answer: %v", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	r := &platentest.Response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	_ = json.Unmarshal(raw, &r.JSON)
	return r
}
