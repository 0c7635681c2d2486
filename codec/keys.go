package codec

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"log/slog"
	"slices"
)

// KeyBytes is the length of every key: AES-256.
const KeyBytes = 32

// MaxKeyIDBytes bounds a key ID: it travels in every payload's metadata.
const MaxKeyIDBytes = 64

// Keys are the encryption keys a process holds, oldest first. Payloads are
// encrypted with the newest; any of them decrypts. Rotating is adding a key
// at the end: what was written before stays readable for as long as its key
// stays in the list. Printing or logging Keys shows the IDs only.
type Keys struct {
	ids  []string
	aead map[string]cipher.AEAD
}

// newKeys takes ownership of nothing: the secrets are copied into the
// ciphers and not kept otherwise.
func newKeys(source string, entries []keyEntry) (*Keys, error) {
	if len(entries) == 0 {
		return nil, &KeyFileError{Source: source, Err: ErrNoKeys}
	}
	k := &Keys{aead: make(map[string]cipher.AEAD, len(entries))}
	for _, e := range entries {
		if _, dup := k.aead[e.id]; dup {
			return nil, &KeyFileError{Source: source, Line: e.line, Reason: fmt.Sprintf("key ID %q is defined twice", e.id)}
		}
		block, err := aes.NewCipher(e.secret)
		if err != nil {
			return nil, &KeyFileError{Source: source, Line: e.line, Reason: fmt.Sprintf("key %q", e.id), Err: err}
		}
		gcm, err := cipher.NewGCM(block)
		if err != nil {
			return nil, &KeyFileError{Source: source, Line: e.line, Reason: fmt.Sprintf("key %q", e.id), Err: err}
		}
		k.ids = append(k.ids, e.id)
		k.aead[e.id] = gcm
	}
	return k, nil
}

type keyEntry struct {
	id     string
	secret []byte
	line   int
}

// IDs are the key IDs, oldest first.
func (k *Keys) IDs() []string { return slices.Clone(k.ids) }

// Newest is the ID of the key new payloads are encrypted with.
func (k *Keys) Newest() string { return k.ids[len(k.ids)-1] }

func (k *Keys) newest() (string, cipher.AEAD) {
	id := k.Newest()
	return id, k.aead[id]
}

// String names the keys without their values.
func (k *Keys) String() string {
	if k == nil {
		return "no encryption keys"
	}
	if len(k.ids) == 1 {
		return fmt.Sprintf("encryption key %q", k.ids[0])
	}
	return fmt.Sprintf("%d encryption keys %q, newest %q", len(k.ids), k.ids, k.Newest())
}

// GoString keeps %#v from printing the ciphers' state.
func (k *Keys) GoString() string { return k.String() }

// LogValue keeps the values out of structured logs.
func (k *Keys) LogValue() slog.Value { return slog.StringValue(k.String()) }

// NewKeyLine is one line of a key file with a fresh random key:
// "id=<base64 of 32 random bytes>".
func NewKeyLine(id string) (string, error) {
	if !isKeyID(id) {
		return "", fmt.Errorf("key ID %q: use 1 to %d letters, digits, '.', '_' or '-'", id, MaxKeyIDBytes)
	}
	secret := make([]byte, KeyBytes)
	_, _ = rand.Read(secret) // never fails: crypto/rand panics instead
	return id + "=" + base64.StdEncoding.EncodeToString(secret), nil
}

func isKeyID(id string) bool {
	if id == "" || len(id) > MaxKeyIDBytes {
		return false
	}
	for _, r := range id {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
		if !ok {
			return false
		}
	}
	return true
}
