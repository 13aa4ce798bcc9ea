// Package token signs and checks the token of Platen's public download
// links: a token names one file of one order, expires, and cannot be
// altered or made without the service's key. It is a package of its own,
// apart from the routes that use it (package downloads), so that its fuzz
// test runs on a small binary.
//
// A token is base64url without padding of
//
//	version (1 byte) | claims | HMAC-SHA256(key, version | claims) (32 bytes)
//
// where claims are the expiry in Unix seconds (a varint) followed by scope,
// order and subject, each a uvarint length and its bytes. The version byte is
// signed too, so that a future key or format can sit beside this one.
package token

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

// DefaultTTL is how long a download link stays valid.
const DefaultTTL = 7 * 24 * time.Hour

// MinKeySize is the shortest key NewSigner accepts: as long as the HMAC-SHA256 output.
const MinKeySize = 32

// version1 is the only token format so far.
const version1 byte = 1

// maxTokenLen bounds the work done on hostile input; real tokens are about 150 characters.
const maxTokenLen = 2048

// Errors Verify returns. Their text is fit for a client: it names what is
// wrong with the link and nothing about the key. Match them with errors.Is.
var (
	ErrMalformed      = errors.New("the download token is malformed")
	ErrBadSignature   = errors.New("the download token's signature does not match: it was altered or is not from this service")
	ErrUnknownVersion = errors.New("the download token has an unknown version")
	ErrExpired        = errors.New("the download token has expired")
	ErrOtherOrder     = errors.New("the token is for another order")
)

// Claims is what a token vouches for.
type Claims struct {
	// Scope says which kind of file the token opens: "a" for a family A order
	// item, "b" for a family B print.
	Scope string
	// Order is the order's uid or reference.
	Order string
	// Subject is the file within the order: the item uid, or "print_id/index".
	Subject string
	// Expires is when the token stops working; it is kept to the second.
	Expires time.Time
}

// Signer signs download tokens with one secret key and verifies them with
// that key or the keys it replaced, so that a key can be rotated without
// breaking the links already sent. It is safe for concurrent use, keys
// changed included.
type Signer struct {
	keys atomic.Pointer[keySet]
}

// keySet is a signer's keys: the first signs, any verifies.
type keySet [][]byte

// NewSigner returns a Signer that signs with a copy of key and also
// verifies with previous, the keys key replaced; each must be at least
// MinKeySize bytes of secret, random data.
func NewSigner(key []byte, previous ...[]byte) (*Signer, error) {
	s := &Signer{}
	return s, s.SetKeys(key, previous...)
}

// SetKeys makes key the signing key and previous the keys tokens may also
// be signed with; tokens signed with any other key stop verifying.
func (s *Signer) SetKeys(key []byte, previous ...[]byte) error {
	set := make(keySet, 0, 1+len(previous))
	for _, k := range append([][]byte{key}, previous...) {
		if len(k) < MinKeySize {
			return fmt.Errorf("links: a signing key has %d bytes, it needs at least %d", len(k), MinKeySize)
		}
		set = append(set, append([]byte(nil), k...))
	}
	s.keys.Store(&set)
	return nil
}

// Sign returns the token for c. Callers usually set c.Expires to
// time.Now().Add(DefaultTTL).
func (s *Signer) Sign(c Claims) string {
	msg := appendClaims([]byte{version1}, c)
	return base64.RawURLEncoding.EncodeToString(mac(msg, (*s.keys.Load())[0], msg))
}

// Verify checks token and returns its claims when it is authentic and has not
// expired at now. The error wraps ErrMalformed, ErrUnknownVersion,
// ErrBadSignature or ErrExpired.
func (s *Signer) Verify(token string, now time.Time) (Claims, error) {
	if len(token) > maxTokenLen {
		return Claims{}, fmt.Errorf("%w: it is too long", ErrMalformed)
	}
	// Go's decoder skips CR and LF even when strict: with them let in, one
	// signed link would have countless spellings that all verify.
	raw, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err != nil || strings.ContainsAny(token, "\r\n") {
		return Claims{}, fmt.Errorf("%w: it is not base64url", ErrMalformed)
	}
	if len(raw) < 1+sha256.Size {
		return Claims{}, fmt.Errorf("%w: it is too short", ErrMalformed)
	}
	if raw[0] != version1 {
		return Claims{}, fmt.Errorf("%w %d (this service reads version %d)", ErrUnknownVersion, raw[0], version1)
	}
	msg, sig := raw[:len(raw)-sha256.Size], raw[len(raw)-sha256.Size:]
	if !s.signed(sig, msg) {
		return Claims{}, ErrBadSignature
	}
	c, err := parseClaims(msg[1:])
	if err != nil {
		return Claims{}, err
	}
	if !now.Before(c.Expires) {
		return Claims{}, fmt.Errorf("%w: it expired at %s", ErrExpired, c.Expires.UTC().Format(time.RFC3339))
	}
	return c, nil
}

// VerifyFor is Verify for a request that names the file it wants: the token
// must also be for that scope, order and subject, else the error wraps
// ErrOtherOrder.
func (s *Signer) VerifyFor(token, scope, order, subject string, now time.Time) error {
	c, err := s.Verify(token, now)
	if err != nil {
		return err
	}
	// The claims are authentic, so plain comparison leaks nothing a client
	// does not already hold.
	if c.Scope != scope || c.Order != order || c.Subject != subject {
		return ErrOtherOrder
	}
	return nil
}

// signed reports whether sig is msg's signature with one of the keys.
func (s *Signer) signed(sig, msg []byte) bool {
	for _, key := range *s.keys.Load() {
		if hmac.Equal(sig, mac(nil, key, msg)) {
			return true
		}
	}
	return false
}

// mac appends HMAC-SHA256(key, msg) to dst.
func mac(dst, key, msg []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write(msg)
	return h.Sum(dst)
}
