package renderproc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
)

// A supervisor and its child speak in frames over two pipes: a request is
// a uint32 length, the render's time limit in nanoseconds (int64) and the
// RenderRequest; an answer is a uint32 length, a kind byte and either a
// RenderResponse or the google.rpc.Status of a failure. A child says it is
// ready, once started, with an answer of kind answerReady and no body.
// Requests are bounded by MaxMessageBytes, as gRPC bounds the
// same messages; answers by what the child may hold.
const (
	answerResponse byte = 0
	answerStatus   byte = 1
	answerReady    byte = 2
)

func writeFrame(w io.Writer, head []byte, body []byte) error {
	n := len(head) + len(body)
	if n > MaxMessageBytes {
		return fmt.Errorf("a frame of %d bytes is over the %d-byte limit", n, MaxMessageBytes)
	}
	prefix := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(head)), uint32(n)) //nolint:gosec // bounded above
	if _, err := w.Write(append(prefix, head...)); err != nil {
		return err
	}
	_, err := w.Write(body)
	return err
}

// readFrame reads a frame of at most limit bytes.
func readFrame(r io.Reader, limit int64) ([]byte, error) {
	var prefix [4]byte
	if _, err := io.ReadFull(r, prefix[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(prefix[:])
	if int64(n) > limit {
		return nil, &frameTooLarge{size: int64(n), limit: limit}
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, unexpected(err)
	}
	return buf, nil
}

// frameTooLarge is a frame over its reader's limit.
type frameTooLarge struct{ size, limit int64 }

func (e *frameTooLarge) Error() string {
	return fmt.Sprintf("a frame of %d bytes is over the %d-byte limit", e.size, e.limit)
}

func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// encodeRequest is the frame of req with its time limit, checked against
// the request limit before any child is asked.
func encodeRequest(req *renderv1.RenderRequest, limit time.Duration) ([]byte, error) {
	body, err := proto.Marshal(req)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := writeFrame(&buf, binary.BigEndian.AppendUint64(nil, uint64(limit)), body); err != nil { //nolint:gosec // a positive duration
		return nil, err
	}
	return buf.Bytes(), nil
}

func readRequest(r io.Reader) (*renderv1.RenderRequest, time.Duration, error) {
	frame, err := readFrame(r, MaxMessageBytes)
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

func writeReady(w io.Writer) error { return writeFrame(w, []byte{answerReady}, nil) }

// readReady reads the frame a child sends once it is ready.
func readReady(r io.Reader) error {
	frame, err := readFrame(r, 1)
	if err == nil && (len(frame) != 1 || frame[0] != answerReady) {
		err = errors.New("the render process did not say it was ready")
	}
	return err
}

// readAnswer returns the child's response, or its failure as a status
// error; err is a broken pipe or frame. An answer is at most limit bytes.
func readAnswer(r io.Reader, limit int64) (resp *renderv1.RenderResponse, failure error, err error) {
	frame, err := readFrame(r, limit)
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
