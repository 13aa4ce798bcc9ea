package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// TokenPrefix starts every Platen API token, so that secret scanners and
// people can recognise one.
const TokenPrefix = "plt_"

// OperatorTokenPrefix starts every operator API token: an operator's
// token and a client's are told apart at a glance, and by the API.
const OperatorTokenPrefix = "plo_"

// displayLen is how much of a token listings show.
const displayLen = len(TokenPrefix) + 6

// IssuedToken is what is stored of a new token: its hash, and the prefix
// listings show.
type IssuedToken struct {
	Hash    []byte
	Display string
}

// NewOperatorToken returns a fresh operator token and what to store of it.
func NewOperatorToken() (string, IssuedToken) {
	var raw [32]byte
	_, _ = rand.Read(raw[:])
	token := OperatorTokenPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
	return token, IssuedToken{Hash: HashToken(token), Display: token[:displayLen]}
}

// NewToken returns a fresh token, its hash (what is stored) and the prefix
// shown in listings.
func NewToken() (token string, hash []byte, display string) {
	var raw [32]byte
	_, _ = rand.Read(raw[:]) // crypto/rand.Read never fails
	token = TokenPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
	return token, HashToken(token), token[:displayLen]
}

// HashToken is the stored form of a token. Tokens carry 256 random bits, so
// a plain SHA-256 is enough: there is nothing to brute-force.
func HashToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// BearerToken extracts the token from an Authorization value.
func BearerToken(authorization string) (string, bool) {
	const scheme = "bearer "
	if len(authorization) <= len(scheme) || !strings.EqualFold(authorization[:len(scheme)], scheme) {
		return "", false
	}
	token := strings.TrimSpace(authorization[len(scheme):])
	return token, token != ""
}
