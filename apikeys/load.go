package apikeys

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
)

// Load reads a keys file: one "name role key" a line, separated by spaces
// or tabs; blank lines and lines starting with # are skipped. Like an SSH
// key, the file must not be readable or writable by group or others: it
// holds every credential of the server.
func Load(path string) (*Keys, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("API keys: %w", err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("API keys file %s can be read by others (mode %04o): chmod 600 it", path, fi.Mode().Perm())
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("API keys: %w", err)
	}
	var entries []Entry
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Fields(text)
		if len(f) != 3 {
			return nil, fmt.Errorf("API keys file %s, line %d: want \"name role key\", got %d fields", path, line, len(f))
		}
		e := Entry{Name: f[0], Role: Role(f[1]), Key: f[2]}
		if err := checkEntry(e); err != nil {
			return nil, fmt.Errorf("API keys file %s, line %d: %w", path, line, err)
		}
		entries = append(entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("API keys file %s: %w", path, err)
	}
	k, err := New(entries)
	if err != nil {
		return nil, fmt.Errorf("API keys file %s: %w", path, err)
	}
	return k, nil
}
