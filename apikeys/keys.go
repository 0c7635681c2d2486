// Package apikeys holds the API keys that may use an embedded server, each
// with a name and a role. The server's claim mapper turns a key into that
// role (embedded.Options.APIKeys); what each role may do is the
// authorizer's business, not this package's.
package apikeys

import (
	"crypto/sha256"
	"fmt"
	"log/slog"
	"slices"
)

// Role is what a key may do in the server's namespace.
type Role string

const (
	// Reader may read: queries, descriptions, histories, lists.
	Reader Role = "reader"
	// Writer may also start, update, signal, cancel and terminate.
	Writer Role = "writer"
	// Worker may read and process tasks: poll, complete, heartbeat.
	Worker Role = "worker"
	// Admin may do all of the above and administer the namespace
	// (search attributes, namespace settings).
	Admin Role = "admin"
)

// Roles are the roles a keys file may name, weakest first.
var Roles = []Role{Reader, Writer, Worker, Admin}

func (r Role) valid() bool { return slices.Contains(Roles, r) }

// Key is who a key belongs to; never the key itself.
type Key struct {
	Name string
	Role Role
}

// MinKeyBytes is the shortest key a file may hold: a key a person can
// guess opens the server to anyone.
const MinKeyBytes = 16

// Keys are the API keys a server accepts. They are held by their SHA-256,
// so a lookup's time says nothing about how close a guess came, and
// printing or logging Keys shows only how many there are.
type Keys struct {
	byHash map[[sha256.Size]byte]Key
}

// Lookup returns whose key this is.
func (k *Keys) Lookup(key string) (Key, bool) {
	if k == nil {
		return Key{}, false
	}
	v, ok := k.byHash[sha256.Sum256([]byte(key))]
	return v, ok
}

// Len is the number of keys.
func (k *Keys) Len() int {
	if k == nil {
		return 0
	}
	return len(k.byHash)
}

// String counts the keys without showing them.
func (k *Keys) String() string { return fmt.Sprintf("%d API keys", k.Len()) }

// LogValue keeps the keys out of structured logs.
func (k *Keys) LogValue() slog.Value { return slog.StringValue(k.String()) }

// Entry is one key as a program that keeps keys elsewhere than a file
// hands them to New.
type Entry struct {
	Name string
	Role Role
	Key  string
}

// New checks the entries as Load checks a file's lines: names and keys
// unique, names of letters, digits and ".-_@", keys of at least
// MinKeyBytes printable ASCII characters without spaces, known roles.
func New(entries []Entry) (*Keys, error) {
	if len(entries) == 0 {
		return nil, fmt.Errorf("no API keys: with none, nothing could use the server")
	}
	k := &Keys{byHash: make(map[[sha256.Size]byte]Key, len(entries))}
	names := make(map[string]bool, len(entries))
	for _, e := range entries {
		if err := checkEntry(e); err != nil {
			return nil, err
		}
		if names[e.Name] {
			return nil, fmt.Errorf("API key name %q is used twice", e.Name)
		}
		names[e.Name] = true
		h := sha256.Sum256([]byte(e.Key))
		if other, dup := k.byHash[h]; dup {
			return nil, fmt.Errorf("API keys %q and %q are the same key", other.Name, e.Name)
		}
		k.byHash[h] = Key{Name: e.Name, Role: e.Role}
	}
	return k, nil
}

// maxNameBytes keeps names short enough for log lines and error messages.
const maxNameBytes = 64

func checkEntry(e Entry) error {
	if !isName(e.Name) {
		return fmt.Errorf("API key name %q: use 1 to %d letters, digits, '.', '_', '-' or '@'", e.Name, maxNameBytes)
	}
	if !e.Role.valid() {
		return fmt.Errorf("API key %q: unknown role %q (want one of %v)", e.Name, e.Role, Roles)
	}
	if len(e.Key) < MinKeyBytes {
		return fmt.Errorf("API key %q is shorter than %d bytes (make one with: openssl rand -hex 32)", e.Name, MinKeyBytes)
	}
	for _, c := range []byte(e.Key) {
		// The key travels in an HTTP header ("Bearer <key>", or a
		// browser's Basic password), where spaces and control bytes break.
		if c <= ' ' || c > '~' {
			return fmt.Errorf("API key %q: use printable ASCII without spaces", e.Name)
		}
	}
	return nil
}

func isName(s string) bool {
	if s == "" || len(s) > maxNameBytes {
		return false
	}
	for _, c := range []byte(s) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '.', c == '_', c == '-', c == '@':
		default:
			return false
		}
	}
	return true
}
