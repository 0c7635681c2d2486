// Command worker runs AgentSession workflows and their activities. With no
// Temporal address configured it first starts an embedded Temporal server and
// Web UI, so one command shows the whole system working.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"go.temporal.io/sdk/worker"

	"github.com/durabletodos/agenttodos/activities"
	"github.com/durabletodos/agenttodos/codec"
	"github.com/durabletodos/agenttodos/notify"
	"github.com/durabletodos/agenttodos/workflows"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
}

func run() error {
	cfg, err := parseConfig(os.Args[1:])
	if err != nil {
		return err
	}
	// A bad secrets or key file stops the worker before it starts anything.
	var secrets *notify.Secrets
	if cfg.WebhookSecrets != "" {
		if secrets, err = notify.LoadSecrets(cfg.WebhookSecrets); err != nil {
			return err
		}
	}
	enc, err := loadEncryption(cfg)
	if err != nil {
		return err
	}
	defer enc.stop()
	logger, sync := newLogger(cfg.LogLevel)
	defer sync()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	conn, err := connect(ctx, cfg, enc, logger)
	if err != nil {
		return err
	}
	defer conn.Close()
	enc.serve(cfg, conn, logger)

	sessions := &workflows.Config{
		Limits:           cfg.Limits,
		SearchAttributes: searchAttributesRegistered(ctx, conn.Client, conn.Namespace, logger),
		WebhookSecrets:   secrets,
		DataConverter:    codec.DataConverter(enc.keys),
	}
	w := worker.New(conn.Client, cfg.TaskQueue, worker.Options{WorkerStopTimeout: cfg.StopTimeout})
	workflows.Register(w, sessions,
		&activities.Todos{Limits: cfg.Limits},
		&activities.Models{Client: conn.Client, Config: activities.ModelConfigFromEnv()})
	if err := w.Start(); err != nil {
		return fmt.Errorf("start worker: %w", err)
	}
	printReady(os.Stdout, conn, cfg.TaskQueue, enc)

	<-ctx.Done()
	stopGracefully(w, cfg.StopTimeout, stop, logger)
	return nil
}
