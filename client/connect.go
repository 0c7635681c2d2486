package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/contrib/envconfig"
	"go.temporal.io/sdk/log"

	"github.com/durabletodos/agenttodos/codec"
	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/identity"
)

// dialTimeout bounds the first connection: a server that is not there
// should produce a hint, not a hang.
const dialTimeout = 5 * time.Second

// connFlags are the stock temporal CLI's connection flags, under its names,
// so what works with `temporal` works here. Each overrides its setting in
// the config file profile and the TEMPORAL_* environment variables, which
// envconfig reads as the stock CLI does.
type connFlags struct {
	fs                         *pflag.FlagSet
	address, namespace, apiKey string
	profile, configFile        string
	tls                        bool
	tlsFiles                   envconfig.ClientConfigTLS // --tls-*
	// encryptionKeys is the key file the worker encrypts payloads with.
	encryptionKeys string
}

func (c *connFlags) register(fs *pflag.FlagSet) {
	c.fs = fs
	fs.StringVar(&c.address, "address", contract.DefaultFrontendAddress, "Temporal frontend `host:port` (env TEMPORAL_ADDRESS)")
	fs.StringVarP(&c.namespace, "namespace", "n", client.DefaultNamespace, "Temporal `namespace` (env TEMPORAL_NAMESPACE)")
	fs.StringVar(&c.apiKey, "api-key", "", "API `key` for requests; turns TLS on (env TEMPORAL_API_KEY)")
	fs.BoolVar(&c.tls, "tls", false, "use TLS; on by default with --api-key or any --tls-* flag, --tls=false turns it off (env TEMPORAL_TLS)")
	fs.StringVar(&c.tlsFiles.ClientCertPath, "tls-cert-path", "", "x509 client certificate `file` (env TEMPORAL_TLS_CLIENT_CERT_PATH)")
	fs.StringVar(&c.tlsFiles.ClientKeyPath, "tls-key-path", "", "x509 client private key `file` (env TEMPORAL_TLS_CLIENT_KEY_PATH)")
	fs.StringVar(&c.tlsFiles.ServerCACertPath, "tls-ca-path", "", "server CA certificate `file` (env TEMPORAL_TLS_SERVER_CA_CERT_PATH)")
	fs.StringVar(&c.tlsFiles.ServerName, "tls-server-name", "", "TLS server `name` to expect (env TEMPORAL_TLS_SERVER_NAME)")
	fs.BoolVar(&c.tlsFiles.DisableHostVerification, "tls-disable-host-verification", false, "skip TLS host name verification (env TEMPORAL_TLS_DISABLE_HOST_VERIFICATION)")
	fs.StringVar(&c.profile, "profile", "", "config file `profile` (env TEMPORAL_PROFILE; default \"default\")")
	fs.StringVar(&c.configFile, "config-file", "", "TOML config `file` (env TEMPORAL_CONFIG_FILE; default temporalio/temporal.toml in the user config dir)")
	fs.StringVar(&c.encryptionKeys, "encryption-keys", os.Getenv(codec.EnvKeysFile), "key `file` of a worker that encrypts payloads (its --encryption-keys; env "+codec.EnvKeysFile+", or the keys themselves in "+codec.EnvKeys+")")
}

// clientOptions loads the profile as envconfig.LoadClientOptions would, and
// applies the flags to it before it becomes client options: TLS files must
// be in the profile when envconfig builds the tls.Config from it.
func (c *connFlags) clientOptions() (client.Options, error) {
	p, err := envconfig.LoadClientConfigProfile(envconfig.LoadClientConfigProfileOptions{ConfigFilePath: c.configFile, ConfigFileProfile: c.profile})
	if err != nil {
		return client.Options{}, fmt.Errorf("reading Temporal connection settings: %w", err)
	}
	// The address and namespace flags have defaults, which only fill in
	// what neither the profile nor the environment set.
	if c.fs.Changed("address") || p.Address == "" {
		p.Address = c.address
	}
	if c.fs.Changed("namespace") || p.Namespace == "" {
		p.Namespace = c.namespace
	}
	p.APIKey = cmp.Or(c.apiKey, p.APIKey)
	f := c.tlsFiles
	if c.tls || f.ClientCertPath+f.ClientKeyPath+f.ServerCACertPath+f.ServerName != "" || f.DisableHostVerification {
		t := cmp.Or(p.TLS, &envconfig.ClientConfigTLS{})
		t.ClientCertPath = cmp.Or(f.ClientCertPath, t.ClientCertPath)
		t.ClientKeyPath = cmp.Or(f.ClientKeyPath, t.ClientKeyPath)
		t.ServerCACertPath = cmp.Or(f.ServerCACertPath, t.ServerCACertPath)
		t.ServerName = cmp.Or(f.ServerName, t.ServerName)
		t.DisableHostVerification = t.DisableHostVerification || f.DisableHostVerification
		t.Disabled = false
		p.TLS = t
	}
	if c.fs.Changed("tls") && !c.tls {
		p.TLS = &envconfig.ClientConfigTLS{Disabled: true}
	}
	opts, err := p.ToClientOptions(envconfig.ToClientOptionsRequest{})
	if err != nil {
		return client.Options{}, fmt.Errorf("invalid Temporal connection settings: %w", err)
	}
	return opts, nil
}

// connect dials Temporal on first use, so commands that need no server
// (schema, help, argument errors) never wait on one.
func (a *app) connect() (client.Client, error) {
	if a.client != nil {
		return a.client, nil
	}
	c, err := a.dial(a)
	if err != nil {
		return nil, err
	}
	a.client = c
	return c, nil
}

func (a *app) close() {
	if a.client != nil {
		a.client.Close()
		a.client = nil
	}
}

func dialTemporal(a *app) (client.Client, error) {
	opts, err := a.conn.clientOptions()
	if err != nil {
		return nil, err
	}
	// The SDK logs at INFO to stderr by default, which would interleave with
	// a checklist a person is reading; only warnings and worse get through.
	opts.Logger = log.NewStructuredLogger(slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	keys, err := codec.Load(a.conn.encryptionKeys)
	if err != nil {
		return nil, err
	}
	codec.Configure(&opts, keys)
	// Writes carry --as in the agent-todos-writer header, encrypted like
	// every payload when the keys say so.
	opts.ContextPropagators = append(opts.ContextPropagators, identity.Propagator{Converter: opts.DataConverter})
	// Remember where we went, so error hints name the address actually used.
	a.address, a.namespace = opts.HostPort, opts.Namespace
	ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	defer cancel()
	c, err := client.DialContext(ctx, opts)
	if err != nil {
		return nil, &unreachableError{address: opts.HostPort, err: err}
	}
	return c, nil
}

// unreachableError is a failed first connection.
type unreachableError struct {
	address string
	err     error
}

func (e *unreachableError) Error() string {
	if cause := e.err.Error(); tlsFailure(cause) {
		// The server is there; asking whether the worker runs would send
		// a person looking in the wrong place.
		return fmt.Sprintf("cannot reach Temporal at %s over TLS: %s (check --tls-ca-path, --tls-cert-path and --tls-key-path, or TEMPORAL_TLS_*)", e.address, cause)
	}
	return fmt.Sprintf("cannot reach Temporal at %s: is the worker running? (go run ./worker)", e.address)
}

// tlsFailure says whether a dial failed in the TLS handshake: a server
// that wants a certificate, or one we do not trust.
func tlsFailure(cause string) bool {
	for _, s := range []string{"tls:", "x509:", "authentication handshake failed"} {
		if strings.Contains(cause, s) {
			return true
		}
	}
	return false
}

func (e *unreachableError) Unwrap() error { return e.err }
