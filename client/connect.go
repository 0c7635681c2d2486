package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/spf13/pflag"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/contrib/envconfig"
	"go.temporal.io/sdk/log"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/payloads"
)

// dialTimeout bounds the first connection: a server that is not there
// should produce a hint, not a hang.
const dialTimeout = 5 * time.Second

// connFlags are the connection flags every command shares.
type connFlags struct {
	address, namespace string
}

func (c *connFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&c.address, "address", "", "Temporal frontend `host:port` (overrides TEMPORAL_ADDRESS)")
	fs.StringVarP(&c.namespace, "namespace", "n", "", "Temporal `namespace` (overrides TEMPORAL_NAMESPACE)")
}

// clientOptions reads the connection settings the way the Temporal CLI does
// (config file profile, then TEMPORAL_* variables), then applies the
// command-line overrides.
func (c *connFlags) clientOptions() (client.Options, error) {
	opts, err := envconfig.LoadClientOptions(envconfig.LoadClientOptionsRequest{})
	if err != nil {
		return client.Options{}, fmt.Errorf("reading Temporal connection settings: %w", err)
	}
	if c.address != "" {
		opts.HostPort = c.address
	}
	if opts.HostPort == "" {
		opts.HostPort = contract.DefaultFrontendAddress
	}
	if c.namespace != "" {
		opts.Namespace = c.namespace
	}
	if opts.Namespace == "" {
		opts.Namespace = client.DefaultNamespace
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
	opts.DataConverter = payloads.DataConverter()
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
	return fmt.Sprintf("cannot reach Temporal at %s: is the worker running? (go run ./worker)", e.address)
}

func (e *unreachableError) Unwrap() error { return e.err }
