package main

import (
	"crypto/tls"
	"strings"
	"testing"

	"go.temporal.io/sdk/client"

	"github.com/durabletodos/agenttodos/apikeys"
)

func TestOwnConnectionMustMatchTheEmbeddedServer(t *testing.T) {
	keys, err := apikeys.New([]apikeys.Entry{
		{Name: "the-worker", Role: apikeys.Worker, Key: "worker-key-0123456789abcdef"},
		{Name: "alice", Role: apikeys.Reader, Key: "reader-key-0123456789abcdef"},
	})
	if err != nil {
		t.Fatal(err)
	}
	plain := client.Options{ConnectionOptions: client.ConnectionOptions{TLSDisabled: true}}
	withTLS := client.Options{ConnectionOptions: client.ConnectionOptions{TLS: &tls.Config{}}}
	withCert := client.Options{ConnectionOptions: client.ConnectionOptions{TLS: &tls.Config{Certificates: []tls.Certificate{{}}}}}
	serverTLS := config{TLSCert: "server.pem", TLSKey: "server-key.pem"}
	mutual := config{TLSCert: "server.pem", TLSKey: "server-key.pem", TLSClientCA: "ca.pem"}
	for _, c := range []struct {
		name   string
		cfg    config
		opts   client.Options
		apiKey string
		keys   *apikeys.Keys
		want   string // "" for no error
	}{
		{"nothing on either side", config{}, client.Options{}, "", nil, ""},
		{"server TLS, client plain", serverTLS, client.Options{}, "", nil, "TEMPORAL_TLS_SERVER_CA_CERT_PATH"},
		{"server TLS, client TLS", serverTLS, withTLS, "", nil, ""},
		{"server plain, client TLS", config{}, withTLS, "", nil, "unset them"},
		{"server plain, API key turning TLS on", config{}, withTLS, "worker-key-0123456789abcdef", keys, "TEMPORAL_TLS=false"},
		{"mutual TLS, no client certificate", mutual, withTLS, "", nil, "TEMPORAL_TLS_CLIENT_CERT_PATH"},
		{"mutual TLS, client certificate", mutual, withCert, "", nil, ""},
		{"keys, no key", config{}, plain, "", keys, "set TEMPORAL_API_KEY to a key with the worker role"},
		{"keys, unknown key", config{}, plain, "guess-0123456789abcdef", keys, "not one of the keys"},
		{"keys, reader key", config{}, plain, "reader-key-0123456789abcdef", keys, `"alice"'s, a reader key`},
		{"keys, worker key", config{}, plain, "worker-key-0123456789abcdef", keys, ""},
	} {
		err := checkOwnConnection(c.cfg, c.opts, c.apiKey, c.keys)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

func TestSecurityFlagsOnlyForTheEmbeddedServer(t *testing.T) {
	t.Setenv("AGENT_INSECURE_LISTEN", "")
	c, err := parseConfig([]string{"-tls-cert", "s.pem", "-tls-key", "k.pem", "-api-keys", "keys", "-insecure-listen"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.embeddedOnly(), " "); got != "--tls-cert --tls-key --api-keys --insecure-listen" {
		t.Errorf("embeddedOnly() = %q", got)
	}
	t.Setenv("AGENT_INSECURE_LISTEN", "true")
	if c, err := parseConfig(nil); err != nil || !c.InsecureListen {
		t.Errorf("AGENT_INSECURE_LISTEN=true: %v, %v", c.InsecureListen, err)
	}
	t.Setenv("AGENT_INSECURE_LISTEN", "sure")
	if _, err := parseConfig(nil); err == nil || !strings.Contains(err.Error(), "AGENT_INSECURE_LISTEN") {
		t.Errorf("AGENT_INSECURE_LISTEN=sure: %v", err)
	}
}
