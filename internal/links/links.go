// Package links owns the signed tokens in Platen's public download links
// (contract §5): a token names one file of one order, expires, and cannot be
// altered or made without the service's key. The HTTP routes that read the
// token live elsewhere; this package only signs and checks it.
//
// A token is base64url without padding of
//
//	version (1 byte) | claims | HMAC-SHA256(key, version | claims) (32 bytes)
//
// where claims are the expiry in Unix seconds (a varint) followed by scope,
// order and subject, each a uvarint length and its bytes. The version byte is
// signed too, so that a future key or format can sit beside this one.
package links

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"
)

// DefaultTTL is how long a download link stays valid (contract §5).
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

// Signer signs and verifies download tokens with one secret key. It is safe
// for concurrent use.
type Signer struct {
	key []byte
}

// NewSigner returns a Signer keyed with a copy of key, which must be at least
// MinKeySize bytes of secret, random data.
func NewSigner(key []byte) (*Signer, error) {
	if len(key) < MinKeySize {
		return nil, fmt.Errorf("links: the signing key has %d bytes, it needs at least %d", len(key), MinKeySize)
	}
	return &Signer{key: append([]byte(nil), key...)}, nil
}

// Sign returns the token for c. Callers usually set c.Expires to
// time.Now().Add(DefaultTTL).
func (s *Signer) Sign(c Claims) string {
	msg := appendClaims([]byte{version1}, c)
	return base64.RawURLEncoding.EncodeToString(s.mac(msg, msg))
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
	if !hmac.Equal(sig, s.mac(nil, msg)) {
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

// mac appends HMAC-SHA256(key, msg) to dst.
func (s *Signer) mac(dst, msg []byte) []byte {
	h := hmac.New(sha256.New, s.key)
	h.Write(msg)
	return h.Sum(dst)
}
