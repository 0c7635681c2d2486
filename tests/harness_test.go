// Package tests drives the real worker registration through the real client
// against real, in-process Temporal servers.
package tests

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/temporaltest"

	"github.com/durabletodos/agenttodos/activities"
	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/identity"
	"github.com/durabletodos/agenttodos/notify"
	"github.com/durabletodos/agenttodos/payloads"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/workflows"
)

// cluster is one in-process Temporal server per test binary: starting one
// costs seconds, and tests stay independent by using their own task queue
// and workflow IDs.
type cluster struct {
	server *temporaltest.TestServer
	client client.Client
}

var shared *cluster

// newCluster starts a server configured as AgentSession needs it, plus extra
// settings for one test, and a client that writes payloads as our worker and
// client do.
func newCluster(t testing.TB, extra dynamicconfig.StaticClient, opts ...temporaltest.TestServerOption) *cluster {
	ts := sessiontest.NewServer(t, extra, opts...)
	c := ts.NewClientWithOptions(client.Options{
		Logger: sessiontest.QuietLogger(), DataConverter: payloads.DataConverter(),
		// Updates name their writer when a test says who it is (Session.As).
		ContextPropagators: []workflow.ContextPropagator{identity.Propagator{}},
	})
	return &cluster{server: ts, client: c}
}

var queueCounter atomic.Int64

// harness is a worker on its own task queue, registered exactly as the
// worker binary registers it, plus the client that talks to it.
type harness struct {
	t      testing.TB
	c      client.Client
	queue  string
	worker worker.Worker
}

type harnessOptions struct {
	limits todo.Limits
	models activities.ModelConfig
	// register adds extra workflows (for example a non-session caller).
	register func(worker.Registry)
	// client talks to another cluster than the shared one.
	client client.Client
	// secrets are the worker's webhook secrets.
	secrets *notify.Secrets
	// converter is the worker client's data converter, which the session
	// reads the writer header with (an encrypting one, with client).
	converter converter.DataConverter
}

func newHarness(t testing.TB, o harnessOptions) *harness {
	t.Helper()
	c := shared.client
	if o.client != nil {
		c = o.client
	}
	h := &harness{t: t, c: c, queue: fmt.Sprintf("agent-sessions-%s-%d", t.Name(), queueCounter.Add(1))}
	h.worker = worker.New(h.c, h.queue, sessiontest.WorkerOptions())
	workflows.Register(h.worker,
		&workflows.Config{Limits: o.limits, SearchAttributes: true, WebhookSecrets: o.secrets, DataConverter: o.converter},
		&activities.Todos{Limits: o.limits},
		&activities.Models{Client: h.c, Config: o.models})
	if o.register != nil {
		o.register(h.worker)
	}
	if err := h.worker.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.worker.Stop)
	return h
}

func (h *harness) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	h.t.Cleanup(cancel)
	return ctx
}

// start begins a session and cancels it when the test ends.
func (h *harness) start(id string, in workflows.SessionInput) client.WorkflowRun {
	h.t.Helper()
	run, err := h.c.ExecuteWorkflow(h.ctx(), client.StartWorkflowOptions{
		ID: id, TaskQueue: h.queue,
	}, contract.WorkflowType, in)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { _ = h.c.CancelWorkflow(context.Background(), id, "") })
	return run
}

// on is one session of this harness's client, seen as any program sees it.
func (h *harness) on(id string) sessiontest.Session {
	return sessiontest.Session{T: h.t, C: h.c, ID: id}
}
