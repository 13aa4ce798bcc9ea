package files

import (
	"encoding/base64"
	"encoding/hex"
	"math"
	"net/http"

	"google.golang.org/protobuf/types/known/wrapperspb"
)

// Digest is what Put learns of a file while writing it: its length and the
// SHA-256 of its bytes, lowercase hex (as sha256sum prints it). The API
// answers both with every file, and downloads of the local store send the
// digest as RFC 9530 Repr-Digest and Content-Digest.
type Digest struct {
	Size   int64
	SHA256 string
}

// validSHA256 reports whether s is a SHA-256 in lowercase hex.
func validSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// DigestField is the RFC 9530 field value for a SHA-256 in hex:
// sha-256=:<base64>: (a Dictionary member whose value is a Structured
// Fields Byte Sequence).
func DigestField(sha256Hex string) string {
	raw, err := hex.DecodeString(sha256Hex)
	if err != nil {
		return ""
	}
	return "sha-256=:" + base64.StdEncoding.EncodeToString(raw) + ":"
}

// digestWriter adds the digest fields of RFC 9530 to a download's answer
// once its status is known, as the RFC tells them apart:
//
//   - Repr-Digest is the digest of the selected representation, the whole
//     file: the same on a 200, on a 206 of any range, and on a HEAD.
//   - Content-Digest is the digest of this message's content: on a 200 to a
//     GET that is the whole file (print files are never content-coded), so
//     it equals Repr-Digest. A 206's content is the range, whose digest
//     would have to be computed while sending it; a HEAD has no content.
//     Neither gets one.
//
// Other answers (304, 412, 416, errors) carry neither.
type digestWriter struct {
	http.ResponseWriter
	field       string
	head, wrote bool
}

func (d *digestWriter) WriteHeader(code int) {
	if !d.wrote {
		d.wrote = true
		h := d.Header()
		switch code {
		case http.StatusOK:
			h.Set("Repr-Digest", d.field)
			if !d.head {
				h.Set("Content-Digest", d.field)
			}
		case http.StatusPartialContent:
			h.Set("Repr-Digest", d.field)
		}
	}
	d.ResponseWriter.WriteHeader(code)
}

func (d *digestWriter) Write(p []byte) (int, error) {
	if !d.wrote {
		d.WriteHeader(http.StatusOK)
	}
	return d.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (d *digestWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }

// DigestAt is ds[i] when it is known, else nil: a file stored before
// digests were kept has none (ds is shorter, or its entry is empty).
func DigestAt(ds []Digest, i int) *Digest {
	if i < 0 || i >= len(ds) || ds[i].SHA256 == "" {
		return nil
	}
	return &ds[i]
}

// SizeProto is d's size as the API answers it: null when d is unknown.
// Print files are far below 4 GiB (a render's memory is bounded), so the
// API's number is a uint32, a JSON number.
func SizeProto(d *Digest) *wrapperspb.UInt32Value {
	if d == nil || d.Size < 0 || d.Size > math.MaxUint32 {
		return nil
	}
	return wrapperspb.UInt32(uint32(d.Size))
}

// SHA256Proto is d's SHA-256 (hex) as the API answers it: null when d is
// unknown.
func SHA256Proto(d *Digest) *wrapperspb.StringValue {
	if d == nil {
		return nil
	}
	return wrapperspb.String(d.SHA256)
}
