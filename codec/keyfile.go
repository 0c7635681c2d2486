package codec

import (
	"encoding/base64"
	"fmt"
	"os"
	"runtime"
	"strings"
)

// Where keys come from, besides a --encryption-keys flag.
const (
	// EnvKeysFile names a key file, as --encryption-keys does (the flag wins).
	EnvKeysFile = "AGENT_ENCRYPTION_KEYS"
	// EnvKeys holds the keys themselves, in the key file's format, entries
	// separated by newlines or commas: for containers and CI, where a file
	// is awkward. It cannot be combined with a key file.
	EnvKeys = "AGENT_ENCRYPTION_KEY"
)

// Load finds the keys a process is configured with: the key file at path
// (the --encryption-keys flag, whose default is $AGENT_ENCRYPTION_KEYS),
// else $AGENT_ENCRYPTION_KEY. With neither it returns nil keys and no error:
// encryption is off.
func Load(path string) (*Keys, error) {
	inline := os.Getenv(EnvKeys)
	switch {
	case path != "" && inline != "":
		return nil, &KeyFileError{Source: "$" + EnvKeys, Reason: "set either a key file (--encryption-keys or $" + EnvKeysFile + ") or $" + EnvKeys + ", not both"}
	case path != "":
		return LoadKeyFile(path)
	case inline != "":
		return ParseKeys(strings.ReplaceAll(inline, ",", "\n"), "$"+EnvKeys)
	}
	return nil, nil
}

// LoadKeyFile reads a key file (see ParseKeys). Like an SSH private key, the
// file must not be readable by group or others.
func LoadKeyFile(path string) (*Keys, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, &KeyFileError{Source: path, Err: err}
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return nil, &InsecureKeyFileError{Path: path, Mode: fi.Mode()}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, &KeyFileError{Source: path, Err: err}
	}
	return ParseKeys(string(raw), path)
}

// ParseKeys reads keys in the key file's format: one "id=key" a line, oldest
// first, where id is 1 to 64 letters, digits, '.', '_' or '-', and key is 32
// random bytes in standard base64 (`head -c 32 /dev/urandom | base64`).
// Blank lines and lines starting with # are skipped. source names the text
// in errors (a path, a variable).
func ParseKeys(text, source string) (*Keys, error) {
	var entries []keyEntry
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, value, ok := strings.Cut(line, "=")
		id, value = strings.TrimSpace(id), strings.TrimSpace(value)
		if !ok {
			return nil, &KeyFileError{Source: source, Line: n, Reason: "want id=base64-key"}
		}
		if looksLikeKey(id) {
			// A key line missing its ID ("<key>=" after padding, or the
			// key twice): the part before "=" is key material, and the
			// errors below would quote it as an ID.
			return nil, &KeyFileError{Source: source, Line: n, Reason: "want id=base64-key (the part before \"=\" looks like a key, not an ID)"}
		}
		if !isKeyID(id) {
			// The ID is shown only when it is short and printable: a line
			// without "=" in the right place could be a key.
			return nil, &KeyFileError{Source: source, Line: n, Reason: fmt.Sprintf("the key ID must be 1 to %d letters, digits, '.', '_' or '-'", MaxKeyIDBytes)}
		}
		secret, err := base64.StdEncoding.DecodeString(value)
		if err != nil {
			if secret, err = base64.RawStdEncoding.DecodeString(value); err != nil {
				return nil, &KeyFileError{Source: source, Line: n, Reason: fmt.Sprintf("key %q is not standard base64", id)}
			}
		}
		if len(secret) != KeyBytes {
			return nil, &KeyFileError{Source: source, Line: n, Reason: fmt.Sprintf("key %q is %d bytes; AES-256 takes %d", id, len(secret), KeyBytes)}
		}
		entries = append(entries, keyEntry{id: id, secret: secret, line: n})
	}
	return newKeys(source, entries)
}

// looksLikeKey says whether text could be a key in base64: long enough, and
// decoding to about KeyBytes.
func looksLikeKey(text string) bool {
	if len(text) < base64.RawStdEncoding.EncodedLen(KeyBytes)-2 {
		return false
	}
	b, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(text, "="))
	return err == nil && len(b) >= KeyBytes-2
}
