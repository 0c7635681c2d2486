package main

import (
	"context"
	"log/slog"
	"os"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/durabletodos/agenttodos/activities"
	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/embedded"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/workflows"
)

// stack is one embedded server and one worker on task queue
// agent-sessions, in this process, registered exactly as the worker binary
// registers AgentSession, plus BenchNoop.
type stack struct {
	srv *embedded.Server
	c   client.Client
	w   worker.Worker
	// tempDir is removed on stop when the stack made it.
	tempDir string
}

// startStack starts a server with opts (no UI, a free port, the search
// attributes) and the worker. With opts.DataDir empty and inMemory false it
// makes a temporary data directory: a SQLite file, as the worker binary
// runs by default.
func startStack(opts embedded.Options, inMemory bool, logger *slog.Logger) (_ *stack, err error) {
	s := &stack{}
	defer func() {
		if err != nil {
			s.stop()
		}
	}()
	if opts.DataDir == "" && !inMemory {
		if s.tempDir, err = os.MkdirTemp("", "bench-data-"); err != nil {
			return nil, err
		}
		opts.DataDir = s.tempDir
	}
	opts.FrontendAddress = "127.0.0.1:0"
	opts.UIAddress = embedded.UIDisabled
	opts.SearchAttributes = contract.SearchAttributeNames
	opts.Logger = logger.With("component", "temporal-server")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if s.srv, err = embedded.Start(ctx, opts); err != nil {
		return nil, err
	}
	s.c, err = client.Dial(client.Options{
		HostPort:  s.srv.FrontendAddress(),
		Namespace: s.srv.Namespace(),
		Logger:    sdklog.NewStructuredLogger(logger),
	})
	if err != nil {
		return nil, err
	}
	limits := todo.Limits{}
	s.w = worker.New(s.c, contract.TaskQueue, worker.Options{})
	workflows.Register(s.w,
		&workflows.Config{Limits: limits, SearchAttributes: searchAttributesRegistered(ctx, s.c, s.srv.Namespace()), WebhookSecrets: benchSecrets},
		&activities.Todos{Limits: limits},
		&activities.Models{Client: s.c, Config: activities.ModelConfigFromEnv()})
	s.w.RegisterWorkflowWithOptions(benchNoop, workflow.RegisterOptions{Name: noopWorkflowType})
	if err := s.w.Start(); err != nil {
		s.w = nil
		return nil, err
	}
	return s, nil
}

func (s *stack) stop() {
	if s.w != nil {
		s.w.Stop()
	}
	if s.c != nil {
		s.c.Close()
	}
	if s.srv != nil {
		_ = s.srv.Stop()
	}
	if s.tempDir != "" {
		_ = os.RemoveAll(s.tempDir)
	}
}

// searchAttributesRegistered is the worker binary's start-up check.
func searchAttributesRegistered(ctx context.Context, c client.Client, namespace string) bool {
	resp, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return false
	}
	for _, name := range contract.SearchAttributeNames {
		if resp.GetCustomAttributes()[name] != enumspb.INDEXED_VALUE_TYPE_INT {
			return false
		}
	}
	return true
}
