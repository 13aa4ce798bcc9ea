package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Signature is the Platen-Signature of body: "sha256=" and the hex HMAC-
// SHA256 of the exact bytes sent, keyed with the whole secret string.
func Signature(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// StandardSignature is the webhook-signature of the Standard Webhooks
// specification: "v1," and the base64 HMAC-SHA256 of "id.timestamp.body",
// keyed with the base64-decoded part of the secret after "whsec_".
func StandardSignature(secret, id string, timestamp int64, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil {
		return "", fmt.Errorf("the signing secret is not whsec_ and base64: %w", err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + strconv.FormatInt(timestamp, 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// signatures are the signature headers of one attempt.
type signatures struct {
	// Platen is Platen-Signature: one value, signed with the newest secret,
	// so that a receiver comparing the header with its own HMAC (GitHub's
	// libraries do) verifies every delivery, during a rotation too.
	Platen string
	// Previous is Platen-Signature-Previous: the previous secret's
	// signature while a rotation's 24 hours run, else empty.
	Previous string
	// Standard is webhook-signature: every secret's, space-separated, as
	// the Standard Webhooks specification allows.
	Standard string
}

// signatureHeaders signs one attempt with every secret in use, the newest
// first.
func signatureHeaders(secrets []string, id string, timestamp int64, body []byte) (signatures, error) {
	var out signatures
	standard := make([]string, 0, len(secrets))
	for i, secret := range secrets {
		switch i {
		case 0:
			out.Platen = Signature(secret, body)
		case 1:
			out.Previous = Signature(secret, body)
		}
		sig, err := StandardSignature(secret, id, timestamp, body)
		if err != nil {
			return signatures{}, err
		}
		standard = append(standard, sig)
	}
	out.Standard = strings.Join(standard, " ")
	return out, nil
}
