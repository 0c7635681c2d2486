package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/durabletodos/agenttodos/codec"
)

func writeSecret(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Encryption is off unless configured; a token without keys, and a codec
// server off loopback without a token, are refused before anything starts.
func TestEncryptionSettings(t *testing.T) {
	for _, k := range []string{codec.EnvKeysFile, codec.EnvKeys, codec.EnvToken, "AGENT_CODEC_ADDRESS", "AGENT_CODEC_TOKEN_FILE", "AGENT_CODEC_ORIGINS"} {
		t.Setenv(k, "")
	}
	line, err := codec.NewKeyLine("k1")
	if err != nil {
		t.Fatal(err)
	}
	keyFile := writeSecret(t, "keys", line+"\n")
	tokenFile := writeSecret(t, "token", "0123456789abcdef-token\n")
	load := func(args ...string) (*encryption, error) {
		t.Helper()
		cfg, err := parseConfig(args)
		if err != nil {
			t.Fatal(err)
		}
		e, err := loadEncryption(cfg)
		if e != nil {
			t.Cleanup(e.stop)
		}
		return e, err
	}

	if e, err := load(); err != nil || e.keys != nil || e.server != nil || e.uiCodec().Endpoint != "" {
		t.Fatalf("nothing configured: %+v, %v", e, err)
	}
	if _, err := load("-codec-token-file", tokenFile); err == nil || !strings.Contains(err.Error(), "encryption is off") {
		t.Fatalf("a token without keys: %v", err)
	}
	e, err := load("-encryption-keys", keyFile, "-codec-address", "127.0.0.1:0", "-codec-token-file", tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	if u := e.uiCodec(); !strings.HasPrefix(u.Endpoint, "http://127.0.0.1:") || !u.IncludeCredentials || e.keys.Newest() != "k1" {
		t.Fatalf("keys, token and a codec server: %+v", u)
	}
	if e, err := load("-encryption-keys", keyFile, "-codec-address", "-"); err != nil || e.server != nil || e.keys == nil {
		t.Fatalf("-codec-address -: %+v, %v", e, err)
	}
	if _, err := load("-encryption-keys", keyFile, "-codec-address", "0.0.0.0:0"); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("a codec server for everyone without a token: %v", err)
	}
	if _, err := load("-encryption-keys", keyFile, "-codec-address", "0.0.0.0:0", "-codec-token-file", tokenFile); err != nil {
		t.Fatalf("a codec server for everyone with a token: %v", err)
	}
	t.Setenv(codec.EnvKeys, line)
	if e, err := load("-codec-address", "127.0.0.1:0"); err != nil || e.keys == nil || e.keyFile != "" {
		t.Fatalf("keys from $%s: %+v, %v", codec.EnvKeys, e, err)
	}
	t.Setenv("AGENT_CODEC_ORIGINS", "https://ui.example:8080,https://cloud.temporal.io")
	if cfg, _ := parseConfig([]string{"-codec-origin", "http://other:1/"}); strings.Join(cfg.CodecOrigins, " ") != "https://ui.example:8080 https://cloud.temporal.io http://other:1" {
		t.Fatalf("origins %q", cfg.CodecOrigins)
	}
}

func TestUIOrigins(t *testing.T) {
	if got := strings.Join(uiOrigins("http://127.0.0.1:8233"), " "); got != "http://127.0.0.1:8233 http://localhost:8233" {
		t.Fatal(got)
	}
	if got := strings.Join(uiOrigins("http://10.0.0.5:8233"), " "); got != "http://10.0.0.5:8233" {
		t.Fatal(got)
	}
	// With --tls-cert the UI is on https, under localhost too.
	if got := strings.Join(uiOrigins("https://127.0.0.1:8233"), " "); got != "https://127.0.0.1:8233 https://localhost:8233" {
		t.Fatal(got)
	}
	if uiOrigins("") != nil {
		t.Fatal("no UI, no origin")
	}
}
