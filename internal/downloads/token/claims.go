package token

import (
	"encoding/binary"
	"fmt"
	"time"
	"unicode/utf8"
)

// appendClaims appends the binary form of c to dst: the expiry, then each
// string with its length in front, so that no two claims encode alike.
func appendClaims(dst []byte, c Claims) []byte {
	dst = binary.AppendVarint(dst, c.Expires.Unix())
	for _, s := range []string{c.Scope, c.Order, c.Subject} {
		dst = binary.AppendUvarint(dst, uint64(len(s)))
		dst = append(dst, s...)
	}
	return dst
}

// parseClaims reverses appendClaims. It only ever reads signed bytes, so an
// error here means a bug or a leaked key rather than a client's typo.
func parseClaims(b []byte) (Claims, error) {
	exp, n := binary.Varint(b)
	if n <= 0 {
		return Claims{}, fmt.Errorf("%w: no expiry", ErrMalformed)
	}
	b = b[n:]
	var fields [3]string
	for i := range fields {
		size, n := binary.Uvarint(b)
		if n <= 0 || size > uint64(len(b)-n) {
			return Claims{}, fmt.Errorf("%w: a field is cut short", ErrMalformed)
		}
		fields[i] = string(b[n : n+int(size)])
		if !utf8.ValidString(fields[i]) {
			return Claims{}, fmt.Errorf("%w: a field is not UTF-8", ErrMalformed)
		}
		b = b[n+int(size):]
	}
	if len(b) != 0 {
		return Claims{}, fmt.Errorf("%w: trailing bytes", ErrMalformed)
	}
	return Claims{Scope: fields[0], Order: fields[1], Subject: fields[2], Expires: time.Unix(exp, 0).UTC()}, nil
}
