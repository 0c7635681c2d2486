package notify

import (
	"bufio"
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strings"
)

// MinSecretBytes is the shortest secret a secrets file may hold: an HMAC key
// a person can guess signs nothing.
const MinSecretBytes = 16

// Secrets are the webhook signing keys a worker holds, by name. They never
// enter a session: a subscriber names its key, and only the delivery
// activity reads it. Printing or logging Secrets shows the names only.
type Secrets struct {
	byName map[string][]byte
}

// Lookup returns the secret called name.
func (s *Secrets) Lookup(name string) ([]byte, bool) {
	if s == nil {
		return nil, false
	}
	v, ok := s.byName[name]
	return v, ok
}

// Has says whether the worker holds a secret called name.
func (s *Secrets) Has(name string) bool {
	_, ok := s.Lookup(name)
	return ok
}

// String names the secrets without their values.
func (s *Secrets) String() string {
	if s == nil {
		return "no webhook secrets"
	}
	return fmt.Sprintf("%d webhook secrets", len(s.byName))
}

// LogValue keeps the values out of structured logs.
func (s *Secrets) LogValue() slog.Value { return slog.StringValue(s.String()) }

// NewSecrets holds the given secrets (for programs that keep them
// elsewhere than a file).
func NewSecrets(byName map[string]string) (*Secrets, error) {
	s := &Secrets{byName: make(map[string][]byte, len(byName))}
	for name, v := range byName {
		if !isName(name) {
			return nil, fmt.Errorf("webhook secret name %q: use 1 to %d letters, digits, '.', '_' or '-'", name, MaxIDBytes)
		}
		if len(v) < MinSecretBytes {
			return nil, fmt.Errorf("webhook secret %q is shorter than %d bytes", name, MinSecretBytes)
		}
		s.byName[name] = []byte(v)
	}
	return s, nil
}

// LoadSecrets reads a secrets file: one "name=secret" a line; blank lines
// and lines starting with # are skipped. Like an SSH key, the file must not
// be readable by group or others.
func LoadSecrets(path string) (*Secrets, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("webhook secrets: %w", err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("webhook secrets file %s can be read by others (mode %04o): chmod 600 it", path, fi.Mode().Perm())
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("webhook secrets: %w", err)
	}
	byName := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		name, value, ok := strings.Cut(text, "=")
		if !ok {
			return nil, fmt.Errorf("webhook secrets file %s, line %d: want name=secret", path, line)
		}
		name = strings.TrimSpace(name)
		if _, dup := byName[name]; dup {
			return nil, fmt.Errorf("webhook secrets file %s, line %d: %q is defined twice", path, line, name)
		}
		byName[name] = strings.TrimSpace(value)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("webhook secrets file %s: %w", path, err)
	}
	s, err := NewSecrets(byName)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}
