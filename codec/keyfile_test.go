package codec

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func writeFile(t *testing.T, text string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // past the umask
		t.Fatal(err)
	}
	return path
}

func TestKeyFile(t *testing.T) {
	t.Setenv(EnvKeys, "")
	k1, k2 := keyLine(t, "2026-01.a"), keyLine(t, "k_2")
	path := writeFile(t, "# oldest first\n\n"+k1+"\n  "+k2+"  \n", 0o600)
	keys, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(keys.IDs(), ","); got != "2026-01.a,k_2" || keys.Newest() != "k_2" {
		t.Fatalf("ids %s, newest %s", got, keys.Newest())
	}

	if runtime.GOOS != "windows" {
		wide := writeFile(t, k1+"\n", 0o640)
		_, err := Load(wide)
		var insecure *InsecureKeyFileError
		if !errors.As(err, &insecure) || !strings.Contains(err.Error(), "chmod 600") {
			t.Fatalf("mode 0640: %v", err)
		}
	}

	_, err = Load(filepath.Join(t.TempDir(), "missing"))
	var kfe *KeyFileError
	if !errors.As(err, &kfe) || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	_, err = Load(writeFile(t, "# nothing yet\n", 0o600))
	if !errors.Is(err, ErrNoKeys) {
		t.Fatalf("empty file: %v", err)
	}

	// Nothing configured: encryption off.
	if keys, err := Load(""); keys != nil || err != nil {
		t.Fatalf("nothing configured: %v, %v", keys, err)
	}
}

// Bad lines are refused with the line and what is wrong, never the text of
// the line: it may be a key.
func TestBadKeyLinesNeverQuoteTheKey(t *testing.T) {
	good := keyLine(t, "k1")
	secret := strings.TrimPrefix(good, "k1=")
	for _, tc := range []struct{ text, want string }{
		{strings.TrimRight(secret, "="), "line 1: want id=base64-key"},
		{secret, "line 1: want id=base64-key (the part before"}, // a padded key: "=" in the wrong place
		{good + "\n" + good, `line 2: key ID "k1" is defined twice`},
		{"k1=" + secret[:20] + "!", `line 1: key "k1" is not standard base64`},
		{"k1=" + secret[:20], `line 1: key "k1" is 15 bytes; AES-256 takes 32`},
		{"k 1=" + secret, "line 1: the key ID must be"},
		{"=" + secret, "line 1: the key ID must be"},
		{secret + "=" + secret, "line 1: want id=base64-key (the part before"},
	} {
		_, err := ParseKeys(tc.text, "keys.txt")
		var kfe *KeyFileError
		if !errors.As(err, &kfe) || !strings.Contains(err.Error(), "keys.txt, "+tc.want) {
			t.Errorf("%q: %v, want %q", tc.text, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), secret[:12]) {
			t.Errorf("error shows the key: %v", err)
		}
	}
}

func TestKeysFromTheEnvironment(t *testing.T) {
	k1, k2 := keyLine(t, "k1"), keyLine(t, "k2")
	t.Setenv(EnvKeys, k1+","+k2)
	keys, err := Load("")
	if err != nil || keys.Newest() != "k2" || len(keys.IDs()) != 2 {
		t.Fatalf("%v, %v", keys, err)
	}
	if _, err := Load(writeFile(t, k1, 0o600)); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Fatalf("file and variable: %v", err)
	}
	t.Setenv(EnvKeys, "k1=,"+k2)
	if _, err := Load(""); err == nil || !strings.Contains(err.Error(), "$"+EnvKeys+", entry 1") {
		t.Fatalf("bad entry: %v", err)
	}
}

func TestToken(t *testing.T) {
	t.Setenv(EnvToken, "")
	if tok, err := LoadToken(""); tok != "" || err != nil {
		t.Fatalf("none: %q, %v", tok, err)
	}
	path := writeFile(t, "0123456789abcdef0123\n", 0o600)
	if tok, err := LoadToken(path); tok != "0123456789abcdef0123" || err != nil {
		t.Fatalf("file: %q, %v", tok, err)
	}
	if runtime.GOOS != "windows" {
		if _, err := LoadToken(writeFile(t, "0123456789abcdef0123\n", 0o644)); err == nil {
			t.Fatal("a token file others can read was accepted")
		}
	}
	t.Setenv(EnvToken, "tiny1")
	if _, err := LoadToken(""); err == nil || strings.Contains(err.Error(), "tiny1") {
		t.Fatalf("short token: %v", err)
	}
	if _, err := LoadToken(path); err == nil {
		t.Fatal("file and variable accepted")
	}
}
