package tests

import (
	"context"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/durabletodos/agenttodos/activities"
	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/payloads"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/workflows"
)

// TestSessionsRunWithoutRegisteredSearchAttributes starts a worker on a
// namespace that lacks the todo search attributes, deciding as the worker
// binary does; sessions must keep working, just without the upserts.
func TestSessionsRunWithoutRegisteredSearchAttributes(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const ns = "no-todo-search-attributes"
	_, err := shared.client.WorkflowService().RegisterNamespace(ctx, &workflowservice.RegisterNamespaceRequest{
		Namespace: ns, WorkflowExecutionRetentionPeriod: durationpb.New(24 * time.Hour),
	})
	if err != nil {
		t.Fatal(err)
	}
	c := shared.server.NewClientWithOptions(client.Options{Namespace: ns, Logger: sessiontest.QuietLogger(), DataConverter: payloads.DataConverter()})
	// A new namespace reaches every server role within moments.
	var missing []string
	sessiontest.WaitFor(t, 30*time.Second, "", func() bool {
		missing, err = workflows.MissingSearchAttributes(ctx, c, ns)
		return err == nil
	})
	if len(missing) != 3 {
		t.Fatalf("missing %v", missing)
	}
	w := worker.New(c, "no-sa", worker.Options{})
	workflows.Register(w, &workflows.Config{SearchAttributes: len(missing) == 0}, &activities.Todos{}, &activities.Models{Client: c})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	h := &harness{t: t, c: c, queue: "no-sa", worker: w}
	var run client.WorkflowRun
	sessiontest.WaitFor(t, 30*time.Second, "", func() bool {
		run, err = c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "no-sa-session", TaskQueue: "no-sa"}, contract.WorkflowType, workflows.SessionInput{})
		return err == nil
	})
	defer func() { _ = c.CancelWorkflow(context.Background(), run.GetID(), "") }()
	res, err := h.on(run.GetID()).Write("", `{"todos":[{"content":"works anyway","status":"in_progress"}]}`)
	if err != nil || res.Seq != 1 {
		t.Fatalf("write %+v: %v", res, err)
	}
	if st := h.on(run.GetID()).Todos(); st.Counts.InProgress != 1 {
		t.Fatalf("state %+v", st)
	}
	h.assertStillRunning(run.GetID())
	// Search attributes from MissingSearchAttributes on the shared namespace.
	if m, err := workflows.MissingSearchAttributes(ctx, shared.client, shared.server.GetDefaultNamespace()); err != nil || len(m) != 0 {
		t.Fatalf("registered namespace reports missing %v (%v)", m, err)
	}
}
