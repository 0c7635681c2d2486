package apikeys

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const (
	aliceKey = "alice-reads-0123456789abcdef"
	botKey   = "bot-writes-0123456789abcdef"
)

func writeFile(t *testing.T, mode os.FileMode, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // WriteFile's mode passes through the umask
		t.Fatal(err)
	}
	return path
}

func TestLoadFindsEachKeysOwnerAndRole(t *testing.T) {
	path := writeFile(t, 0o600, "# name role key\n\nalice reader "+aliceKey+"\n\tci-bot\twriter\t"+botKey+"  \n")
	k, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := k.Lookup(aliceKey); !ok || got != (Key{Name: "alice", Role: Reader}) {
		t.Errorf("alice's key: %+v, %v", got, ok)
	}
	if got, ok := k.Lookup(botKey); !ok || got != (Key{Name: "ci-bot", Role: Writer}) {
		t.Errorf("ci-bot's key: %+v, %v", got, ok)
	}
	for _, wrong := range []string{"", "alice", aliceKey + " ", strings.ToUpper(aliceKey)} {
		if got, ok := k.Lookup(wrong); ok {
			t.Errorf("Lookup(%q) = %+v", wrong, got)
		}
	}
	if s := k.String(); s != "2 API keys" || strings.Contains(s, aliceKey) {
		t.Errorf("String() = %q", s)
	}
}

func TestLoadRefusesAFileOthersCanRead(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes on Windows")
	}
	for _, mode := range []os.FileMode{0o640, 0o604, 0o620} {
		path := writeFile(t, mode, "alice reader "+aliceKey+"\n")
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), "chmod 600") {
			t.Errorf("mode %04o: %v, want a refusal naming chmod 600", mode, err)
		}
	}
}

func TestLoadRefusesBadLines(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"", "no API keys"},
		{"# only a comment\n", "no API keys"},
		{"alice reader\n", `line 1: want "name role key", got 2 fields`},
		{"alice reader " + aliceKey + " extra\n", "got 4 fields"},
		{"alice owner " + aliceKey + "\n", `unknown role "owner"`},
		{"alice reader short\n", "shorter than 16 bytes"},
		{"al/ice reader " + aliceKey + "\n", `name "al/ice"`},
		{"alice reader " + aliceKey + "\nalice writer " + botKey + "\n", `name "alice" is used twice`},
		{"alice reader " + aliceKey + "\nbob writer " + aliceKey + "\n", `"alice" and "bob" are the same key`},
		{"alice reader " + aliceKey + "\u00e9\n", "printable ASCII"},
	} {
		_, err := Load(writeFile(t, 0o600, c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope"))
	if err == nil || !strings.Contains(err.Error(), "API keys") {
		t.Errorf("missing file: %v", err)
	}
}
