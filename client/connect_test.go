package main

import (
	"cmp"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.temporal.io/sdk/client"

	"github.com/durabletodos/agenttodos/contract"
)

// Flags beat the environment and the config file profile; the defaults
// fill only what none of them set; any TLS flag turns TLS on.
func TestConnectionFlagsOverrideEnvironmentAndProfile(t *testing.T) {
	dir := t.TempDir()
	toml := filepath.Join(dir, "temporal.toml")
	os.WriteFile(toml, []byte("[profile.cloud]\naddress = \"cloud:7233\"\nnamespace = \"cloud-ns\"\napi_key = \"k\"\n"), 0o600)
	t.Setenv("TEMPORAL_CONFIG_FILE", filepath.Join(dir, "none.toml"))
	// Set but empty is not unset to envconfig: "" would be the address.
	setenv := func(k, v string) {
		if t.Setenv(k, v); v == "" {
			os.Unsetenv(k)
		}
	}
	options := func(args string) (client.Options, error) {
		a, _, _ := testApp(nil)
		if err := a.rootCommand().ParseFlags(strings.Fields(args)); err != nil {
			t.Fatal(err)
		}
		return a.conn.clientOptions()
	}
	for _, k := range []string{"TEMPORAL_API_KEY", "TEMPORAL_TLS", "TEMPORAL_PROFILE"} {
		setenv(k, "")
	}
	for _, tc := range []struct{ env, args, want string }{ // want: address namespace TLS
		{"", "", contract.DefaultFrontendAddress + " default none"},
		{"env:1 env-ns", "", "env:1 env-ns none"},
		{"env:1 env-ns", "--address flag:2 -n flag-ns", "flag:2 flag-ns none"},
		{"", "--config-file " + toml + " --profile cloud", "cloud:7233 cloud-ns on"},
		{"", "--config-file " + toml + " --profile cloud --tls=false", "cloud:7233 cloud-ns off"},
		{"", "--tls-server-name srv", contract.DefaultFrontendAddress + " default srv"},
	} {
		env := append(strings.Fields(tc.env), "", "")
		setenv("TEMPORAL_ADDRESS", env[0])
		setenv("TEMPORAL_NAMESPACE", env[1])
		opts, err := options(tc.args)
		tls := map[bool]string{true: "off", false: "none"}[opts.ConnectionOptions.TLSDisabled]
		if opts.ConnectionOptions.TLS != nil {
			tls = cmp.Or(opts.ConnectionOptions.TLS.ServerName, "on")
		}
		if got := opts.HostPort + " " + opts.Namespace + " " + tls; err != nil || got != tc.want {
			t.Errorf("env %q, flags %q: got %q, %v; want %q", tc.env, tc.args, got, err, tc.want)
		}
	}
	if _, err := options("--config-file " + toml + " --profile nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("missing profile: %v", err)
	}
}
