package rendersup

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/rendersvc"
)

// A supervisor and its child speak in frames over two pipes: a request is
// a uint32 length, the render's time limit in nanoseconds (int64) and the
// RenderRequest; an answer is a uint32 length, a kind byte and either a
// RenderResponse or the google.rpc.Status of a failure. Both sides bound a
// frame by rendersvc.MaxMessageBytes, as gRPC bounds the same messages.
const (
	answerResponse byte = 0
	answerStatus   byte = 1
)

func writeFrame(w io.Writer, head []byte, body []byte) error {
	n := len(head) + len(body)
	if n > rendersvc.MaxMessageBytes {
		return fmt.Errorf("a frame of %d bytes is over the %d-byte limit", n, rendersvc.MaxMessageBytes)
	}
	prefix := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(head)), uint32(n)) //nolint:gosec // bounded above
	if _, err := w.Write(append(prefix, head...)); err != nil {
		return err
	}
	_, err := w.Write(body)
	return err
}

func readFrame(r io.Reader) ([]byte, error) {
	var prefix [4]byte
	if _, err := io.ReadFull(r, prefix[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(prefix[:])
	if n > rendersvc.MaxMessageBytes {
		return nil, fmt.Errorf("a frame of %d bytes is over the %d-byte limit", n, rendersvc.MaxMessageBytes)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, unexpected(err)
	}
	return buf, nil
}

func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

func writeRequest(w io.Writer, req *renderv1.RenderRequest, limit time.Duration) error {
	body, err := proto.Marshal(req)
	if err != nil {
		return err
	}
	return writeFrame(w, binary.BigEndian.AppendUint64(nil, uint64(limit)), body) //nolint:gosec // a positive duration
}

func readRequest(r io.Reader) (*renderv1.RenderRequest, time.Duration, error) {
	frame, err := readFrame(r)
	if err != nil {
		return nil, 0, err
	}
	if len(frame) < 8 {
		return nil, 0, errors.New("a request frame without its time limit")
	}
	req := &renderv1.RenderRequest{}
	if err := proto.Unmarshal(frame[8:], req); err != nil {
		return nil, 0, err
	}
	return req, time.Duration(binary.BigEndian.Uint64(frame[:8])), nil //nolint:gosec // written from a duration
}

func writeAnswer(w io.Writer, resp *renderv1.RenderResponse, failure error) error {
	kind, msg := answerResponse, proto.Message(resp)
	if failure != nil {
		kind, msg = answerStatus, status.Convert(failure).Proto()
	}
	body, err := proto.Marshal(msg)
	if err != nil {
		return err
	}
	return writeFrame(w, []byte{kind}, body)
}

// readAnswer returns the child's response, or its failure as a status
// error; err is a broken pipe or frame.
func readAnswer(r io.Reader) (resp *renderv1.RenderResponse, failure error, err error) {
	frame, err := readFrame(r)
	if err != nil {
		return nil, nil, err
	}
	if len(frame) == 0 {
		return nil, nil, errors.New("an empty answer frame")
	}
	switch frame[0] {
	case answerResponse:
		resp = &renderv1.RenderResponse{}
		return resp, nil, proto.Unmarshal(frame[1:], resp)
	case answerStatus:
		st := &spb.Status{}
		if err := proto.Unmarshal(frame[1:], st); err != nil {
			return nil, nil, err
		}
		return nil, status.FromProto(st).Err(), nil
	}
	return nil, nil, fmt.Errorf("an answer of unknown kind %d", frame[0])
}
