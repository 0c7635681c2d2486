package embedded

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
)

// Polling intervals for readiness checks. The server and UI are normally up
// within a few milliseconds of their start calls returning, so start small.
const (
	pollMin = 5 * time.Millisecond
	pollMax = 200 * time.Millisecond
)

// frontendTarget is how this process's own clients reach a frontend: the
// public one (with TLS when the server has it) or the internal one.
type frontendTarget struct {
	hostPort string
	tls      *tls.Config // nil: plain text
}

// waitFrontend returns once a client can reach the frontend and see the
// namespace, which is the point at which workers and the CLI just work.
// server.Start returns when the services' start hooks have run, but the gRPC
// server begins accepting in a goroutine, so this is not implied.
func waitFrontend(ctx context.Context, t frontendTarget, namespace string, logger *slog.Logger) error {
	return waitFor(ctx, t, func(ctx context.Context) error { return checkFrontend(ctx, t, namespace, true, logger) })
}

// waitHealthy returns once the frontend answers health checks, which need
// no API key: all Start can ask of the public frontend when it has keys.
func waitHealthy(ctx context.Context, t frontendTarget, namespace string, logger *slog.Logger) error {
	return waitFor(ctx, t, func(ctx context.Context) error { return checkFrontend(ctx, t, namespace, false, logger) })
}

func waitFor(ctx context.Context, t frontendTarget, check func(context.Context) error) error {
	var lastErr error
	err := poll(ctx, func() bool {
		lastErr = check(ctx)
		return lastErr == nil
	})
	if err != nil {
		return fmt.Errorf("frontend at %s not ready: %w (last error: %v)", t.hostPort, err, lastErr)
	}
	return nil
}

func checkFrontend(ctx context.Context, t frontendTarget, namespace string, describe bool, logger *slog.Logger) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	c, err := dialFrontend(ctx, t, namespace, logger)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.CheckHealth(ctx, &client.CheckHealthRequest{}); err != nil || !describe {
		return err
	}
	_, err = c.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: namespace})
	return err
}

// dialFrontend is a client of this server's own frontend.
func dialFrontend(ctx context.Context, t frontendTarget, namespace string, logger *slog.Logger) (client.Client, error) {
	return client.DialContext(ctx, client.Options{
		HostPort:          t.hostPort,
		Namespace:         namespace,
		ConnectionOptions: client.ConnectionOptions{TLS: t.tls},
		// Without a logger the SDK prints to stdout.
		Logger: sdklog.NewStructuredLogger(logger),
	})
}

// waitListening returns once addr accepts TCP connections.
func waitListening(ctx context.Context, addr string) error {
	var d net.Dialer
	err := poll(ctx, func() bool {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return false
		}
		_ = c.Close()
		return true
	})
	if err != nil {
		return fmt.Errorf("%s not accepting connections: %w", addr, err)
	}
	return nil
}

// poll calls ok with exponential backoff until it succeeds or ctx ends.
func poll(ctx context.Context, ok func() bool) error {
	wait := pollMin
	for !ok() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, pollMax)
	}
	return nil
}
