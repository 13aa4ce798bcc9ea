// Package webhooks owns webhook endpoints and their signing secrets; the
// delivery of events arrives with the webhook issue.
package webhooks

import (
	"crypto/rand"
	"encoding/base64"
)

// SecretPrefix starts every signing secret.
const SecretPrefix = "whsec_"

// NewSecret returns a signing secret: whsec_ and the base64 of 32 random
// bytes, the form the Standard Webhooks verifiers read.
func NewSecret() string {
	var raw [32]byte
	_, _ = rand.Read(raw[:]) // crypto/rand.Read never fails
	return SecretPrefix + base64.StdEncoding.EncodeToString(raw[:])
}
