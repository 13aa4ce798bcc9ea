package platentest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"testing"
)

// DigestField is the RFC 9530 field value (sha-256=:<base64>:) of data's
// SHA-256, computed here.
func DigestField(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha-256=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
}

// CheckFileDigest checks that a file entry of an answer or an event body
// ({"size", "sha256", …}) describes data, the bytes its link downloaded:
// size is their length and sha256 their SHA-256 in lowercase hex.
func CheckFileDigest(t *testing.T, what string, entry map[string]any, data []byte) {
	t.Helper()
	sum := sha256.Sum256(data)
	if got, want := entry["size"], float64(len(data)); got != want {
		t.Errorf("%s: size %v, want %v (the bytes downloaded)", what, got, want)
	}
	if got, want := entry["sha256"], hex.EncodeToString(sum[:]); got != want {
		t.Errorf("%s: sha256 %v, want %v (the bytes downloaded)", what, got, want)
	}
}

// CheckNoFileDigest checks that a file entry has size and sha256, both
// null: a file with none known (stored before they were kept), or none.
func CheckNoFileDigest(t *testing.T, what string, entry map[string]any) {
	t.Helper()
	for _, k := range []string{"size", "sha256"} {
		if v, ok := entry[k]; !ok || v != nil {
			t.Errorf("%s: %s %v (present %v), want null", what, k, v, ok)
		}
	}
}

// CheckDigestHeaders checks a download's answer of the whole file (200):
// Content-Digest and Repr-Digest are both the SHA-256 of data, the body
// received.
func CheckDigestHeaders(t *testing.T, what string, resp *http.Response, data []byte) {
	t.Helper()
	want := DigestField(data)
	for _, name := range []string{"Content-Digest", "Repr-Digest"} {
		if got := resp.Header.Get(name); got != want {
			t.Errorf("%s: %s %q, want %q (the body's)", what, name, got, want)
		}
	}
}
