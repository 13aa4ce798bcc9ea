package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/fieldmaskpb"

	"github.com/platen-print/platen/internal/apierr"
)

// MaxBodyBytes is the largest request body accepted (413 above).
const MaxBodyBytes = 8 << 20

// requestBody is the body the gateway reads: the bytes, already read and
// bounded by the body-limit middleware, and room for the decoder to leave a
// field-level explanation that the error handler then answers with.
type requestBody struct {
	*bytes.Reader
	data      []byte
	violation *apierr.Violation
}

func (b *requestBody) Close() error { return nil }

// codec is protojson exactly as the API wants it: proto (snake_case)
// names, every field present (null where unset), unknown fields ignored.
type codec struct {
	runtime.JSONPb
}

func newCodec() *codec {
	return &codec{JSONPb: runtime.JSONPb{
		MarshalOptions:   protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true},
		UnmarshalOptions: protojson.UnmarshalOptions{DiscardUnknown: true},
	}}
}

// Marshal is JSONPb's, with an answer's long plain strings (a design
// echoed back) spliced in rather than escaped (splice.go).
func (c *codec) Marshal(v any) ([]byte, error) {
	if msg, ok := v.(proto.Message); ok {
		if out, spliced, err := marshalSpliced(msg, c.JSONPb.Marshal); spliced {
			return out, err
		}
	}
	return c.JSONPb.Marshal(v)
}

// NewDecoder decodes a request body strictly: protojson alone would take
// "2" for an integer and "NaN" for a price, and the API wants JSON
// numbers there. So the body is first checked against the message's field
// types, naming the JSON path of the first misfit (items[0].quantity: must
// be an integer); then protojson decodes it, its long plain strings spliced
// in (unsplice.go); then an unset update_mask is filled with the top-level
// keys the body holds.
func (c *codec) NewDecoder(r io.Reader) runtime.Decoder {
	return runtime.DecoderFunc(func(v any) error {
		msg, ok := v.(proto.Message)
		if !ok {
			return c.JSONPb.NewDecoder(r).Decode(v)
		}
		body, data, err := readBody(r)
		if err != nil {
			return err
		}
		if len(bytes.TrimSpace(data)) == 0 {
			return io.EOF
		}
		md := msg.ProtoReflect().Descriptor()
		vio, bad := checkTypes(data, md)
		if !bad {
			if small, spliced := unmarshalSpliced(data, msg, c.UnmarshalOptions.Unmarshal); spliced {
				data = small // the same keys, without the megabytes
			} else if err := c.UnmarshalOptions.Unmarshal(data, msg); err != nil {
				vio, bad = apierr.Violation{Description: "invalid request body: " + withoutProtoPrefix(err)}, true
			}
		}
		if bad {
			if body != nil {
				body.violation = &vio
			}
			return errors.New(vio.String())
		}
		return fillUpdateMask(data, msg.ProtoReflect())
	})
}

// withoutProtoPrefix drops protobuf-go's "proto: " from an error. The
// library separates it with a space or a no-break space, chosen per build
// so that nobody matches on its error text; clients should see neither.
func withoutProtoPrefix(err error) string {
	msg, found := strings.CutPrefix(err.Error(), "proto:")
	if !found {
		return msg
	}
	return strings.TrimLeft(msg, " \u00a0")
}

func readBody(r io.Reader) (*requestBody, []byte, error) {
	if body, ok := r.(*requestBody); ok {
		return body, body.data, nil
	}
	data, err := io.ReadAll(r)
	return nil, data, err
}

// fillUpdateMask gives a request with an update_mask field, left unset by
// the client, the mask of the top-level fields present in the body: that
// is how a PUT tells "absent, keep" from "present, replace" (even with an
// empty array or null).
func fillUpdateMask(data []byte, m protoreflect.Message) error {
	fd := m.Descriptor().Fields().ByName("update_mask")
	if fd == nil || fd.Message() == nil || fd.Message().FullName() != "google.protobuf.FieldMask" || m.Has(fd) {
		return nil
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return fmt.Errorf("request body: %w", err)
	}
	mask := &fieldmaskpb.FieldMask{}
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		f := fields.Get(i)
		_, byProto := keys[string(f.Name())]
		_, byJSON := keys[f.JSONName()]
		if (byProto || byJSON) && f != fd {
			mask.Paths = append(mask.Paths, string(f.Name()))
		}
	}
	m.Set(fd, protoreflect.ValueOfMessage(mask.ProtoReflect()))
	return nil
}
