package httpstatus

import (
	"context"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// fakeStream stands in for the gRPC server's transport stream, which is
// where grpc.SetHeader puts response metadata.
type fakeStream struct{ header metadata.MD }

func (f *fakeStream) Method() string { return "/test/Method" }
func (f *fakeStream) SetHeader(md metadata.MD) error {
	f.header = metadata.Join(f.header, md)
	return nil
}
func (f *fakeStream) SendHeader(md metadata.MD) error { return f.SetHeader(md) }
func (f *fakeStream) SetTrailer(metadata.MD) error    { return nil }

func TestSetReachesHeaderAndRecorder(t *testing.T) {
	stream := &fakeStream{}
	rec := &Recorder{}
	ctx := WithRecorder(grpc.NewContextWithServerTransportStream(context.Background(), stream), rec)
	if err := Set(ctx, 201); err != nil {
		t.Fatal(err)
	}
	if got := stream.header.Get(Header); len(got) != 1 || got[0] != "201" {
		t.Errorf("header %s = %v, want [201]", Header, got)
	}
	if rec.Code != 201 {
		t.Errorf("recorded %d, want 201", rec.Code)
	}
}

func TestSetWithoutRecorder(t *testing.T) {
	stream := &fakeStream{}
	if err := Set(grpc.NewContextWithServerTransportStream(context.Background(), stream), 201); err != nil {
		t.Fatal(err)
	}
	if got := stream.header.Get(Header); len(got) != 1 {
		t.Errorf("header %v", got)
	}
}
