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
// SHA256 of the exact bytes sent, keyed with the whole secret string
// (contract §6).
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

// signatureHeaders are the signature headers of one attempt, signed with
// every secret in use (the current one first; during a rotation also the
// previous one): Platen-Signature lists its values separated by ", ", and
// webhook-signature by a space, as Standard Webhooks does.
func signatureHeaders(secrets []string, id string, timestamp int64, body []byte) (platen, standard string, err error) {
	var p, s []string
	for _, secret := range secrets {
		p = append(p, Signature(secret, body))
		sig, err := StandardSignature(secret, id, timestamp, body)
		if err != nil {
			return "", "", err
		}
		s = append(s, sig)
	}
	return strings.Join(p, ", "), strings.Join(s, " "), nil
}
