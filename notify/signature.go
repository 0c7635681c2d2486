package notify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// The headers of a webhook POST.
const (
	// HeaderSignature is "sha256=" and the hex HMAC-SHA256 of the body under
	// the subscriber's secret, as GitHub's X-Hub-Signature-256.
	HeaderSignature = "X-Agent-Todos-Signature"
	// HeaderIdempotencyKey repeats Notification.ID.
	HeaderIdempotencyKey = "Idempotency-Key"
	// HeaderEvent lists the change's kinds, comma-separated.
	HeaderEvent = "X-Agent-Todos-Event"
)

const signaturePrefix = "sha256="

// Sign is the HeaderSignature value of body under secret.
func Sign(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return signaturePrefix + hex.EncodeToString(mac.Sum(nil))
}

// Verify says whether header is body's signature under secret. It compares
// in constant time, so a receiver using it leaks nothing of the secret.
func Verify(secret, body []byte, header string) bool {
	got, ok := strings.CutPrefix(header, signaturePrefix)
	if !ok {
		return false
	}
	sum, err := hex.DecodeString(got)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return hmac.Equal(sum, mac.Sum(nil))
}
