package main

import (
	"context"
	"fmt"
	"log/slog"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/contrib/envconfig"
	"go.temporal.io/sdk/log"

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
	if profile.Address == "" {
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
