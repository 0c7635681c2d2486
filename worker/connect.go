package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/contrib/envconfig"
	"go.temporal.io/sdk/log"

	"github.com/durabletodos/agenttodos/apikeys"
	"github.com/durabletodos/agenttodos/codec"
	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/embedded"
)

// connection is the Temporal cluster the worker runs on: a configured one, or
// the embedded server it started itself.
type connection struct {
	Client    client.Client
	Namespace string
	Address   string
	Server    *embedded.Server // nil on a configured cluster
	// Security is what the embedded server asks of clients, for the
	// banner; empty when nothing.
	Security []string
}

// describeSecurity lists what a client of the embedded server needs.
func describeSecurity(t *embedded.TLSOptions, keys *apikeys.Keys) []string {
	var need []string
	if t != nil {
		need = append(need, "TLS trusting the CA that signed "+t.CertFile+" (--tls-ca-path, TEMPORAL_TLS_SERVER_CA_CERT_PATH)")
		if t.ClientCAFile != "" {
			need = append(need, "a client certificate signed by a CA in "+t.ClientCAFile+" (--tls-cert-path and --tls-key-path, TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH)")
		}
	}
	if keys != nil {
		k := "an API key (--api-key, TEMPORAL_API_KEY; in the Web UI as the password)"
		if t == nil {
			k += " and plain text (--tls=false, TEMPORAL_TLS=false)"
		}
		need = append(need, k)
	}
	return need
}

func (c *connection) Close() {
	c.Client.Close()
	if c.Server != nil {
		_ = c.Server.Stop()
	}
}

// connect dials the cluster envconfig describes; with no address configured
// anywhere (env, profile file) it starts the embedded server instead.
func connect(ctx context.Context, cfg config, enc *encryption, logger *slog.Logger) (*connection, error) {
	profile, err := envconfig.LoadClientConfigProfile(envconfig.LoadClientConfigProfileOptions{})
	if err != nil {
		return nil, fmt.Errorf("load Temporal client config: %w", err)
	}
	opts, err := profile.ToClientOptions(envconfig.ToClientOptionsRequest{})
	if err != nil {
		return nil, fmt.Errorf("Temporal client options: %w", err)
	}
	opts.Logger = log.NewStructuredLogger(logger)
	if opts.Namespace == "" {
		opts.Namespace = client.DefaultNamespace
	}
	conn := &connection{Namespace: opts.Namespace, Address: profile.Address}
	if profile.Address != "" {
		if set := cfg.embeddedOnly(); len(set) > 0 {
			return nil, fmt.Errorf("%s configure the embedded server, which a worker with a Temporal address (%s) does not start: "+
				"secure the cluster itself (README, \"Running on a real cluster\")", strings.Join(set, ", "), profile.Address)
		}
	}
	if profile.Address == "" {
		var keys *apikeys.Keys
		if cfg.APIKeys != "" {
			if keys, err = apikeys.Load(cfg.APIKeys); err != nil {
				return nil, err
			}
		}
		if err := checkOwnConnection(cfg, opts, profile.APIKey, keys); err != nil {
			return nil, err
		}
		var tlsOpts *embedded.TLSOptions
		if cfg.TLSCert != "" || cfg.TLSKey != "" || cfg.TLSClientCA != "" {
			tlsOpts = &embedded.TLSOptions{CertFile: cfg.TLSCert, KeyFile: cfg.TLSKey, ClientCAFile: cfg.TLSClientCA}
		}
		conn.Security = describeSecurity(tlsOpts, keys)
		startCtx, cancel := context.WithTimeout(ctx, cfg.StartTimeout)
		defer cancel()
		logger.Info("No Temporal address configured: starting the embedded server", "dataDir", cfg.DataDir)
		conn.Server, err = embedded.Start(startCtx, embedded.Options{
			DataDir:          cfg.DataDir,
			FrontendAddress:  cfg.FrontendAddress,
			UIAddress:        cfg.UIAddress,
			UICodec:          enc.uiCodec(),
			SQLite:           embedded.SQLiteOptions{Pragmas: cfg.SQLitePragmas},
			Namespace:        opts.Namespace,
			SearchAttributes: contract.SearchAttributeNames,
			Logger:           logger.With("component", "temporal-server"),
			TLS:              tlsOpts,
			APIKeys:          keys,
			InsecureListen:   cfg.InsecureListen,
		})
		if err != nil {
			return nil, fmt.Errorf("start embedded Temporal server: %w", err)
		}
		conn.Address = conn.Server.FrontendAddress()
		opts.HostPort = conn.Address
	}
	codec.Configure(&opts, enc.keys)
	conn.Client, err = client.DialContext(ctx, opts)
	if err != nil {
		if conn.Server != nil {
			_ = conn.Server.Stop()
		}
		return nil, fmt.Errorf("connect to Temporal at %s: %w", opts.HostPort, err)
	}
	return conn, nil
}
