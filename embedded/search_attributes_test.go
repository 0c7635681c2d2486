package embedded

import (
	"context"
	"slices"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

var completedKey = temporal.NewSearchAttributeKeyInt64("TodoCompleted")

// upsertAddedWorkflow upserts the attribute the second start adds.
func upsertAddedWorkflow(ctx workflow.Context) error {
	return workflow.UpsertTypedSearchAttributes(ctx, completedKey.ValueSet(7), pendingKey.ValueSet(2))
}

// TestExistingDatabaseGainsMissingSearchAttributes: a database created with
// fewer search attributes gets the missing one on the next start, through
// the operator API (createNamespace leaves an existing namespace alone, see
// TestCreateNamespaceLeavesExistingAlone), and a workflow started the moment
// Start returns can upsert it: its first workflow task must not fail, as it
// would if the server still resolved attributes from a stale namespace
// cache, and visibility must answer a query on it.
func TestExistingDatabaseGainsMissingSearchAttributes(t *testing.T) {
	opts := Options{DataDir: t.TempDir(), FrontendAddress: "127.0.0.1:0", UIAddress: UIDisabled, SearchAttributes: testAttrs}
	stopServer(t, startServer(t, opts))

	opts.SearchAttributes = append(slices.Clone(testAttrs), completedKey.GetName())
	s := startServer(t, opts)
	c := dial(t, s)
	checkSearchAttributes(t, c, s.Namespace(), opts.SearchAttributes)

	const taskQueue = "added-attributes"
	w := worker.New(c, taskQueue, worker.Options{})
	w.RegisterWorkflow(upsertAddedWorkflow)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "added-attributes", TaskQueue: taskQueue}, upsertAddedWorkflow)
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Get(ctx, nil); err != nil {
		t.Fatalf("workflow upserting %s: %v", completedKey.GetName(), err)
	}
	it := c.GetWorkflowHistory(ctx, run.GetID(), run.GetRunID(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if f := e.GetWorkflowTaskFailedEventAttributes(); f != nil {
			t.Errorf("workflow task failed: %v", f.GetFailure().GetMessage())
		}
	}

	// Visibility is written asynchronously.
	query := "TodoCompleted = 7 AND TodoPending = 2"
	for listCount(t, c, s.Namespace(), query) != 1 {
		if ctx.Err() != nil {
			t.Fatalf("no execution matches %q", query)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
