package embedded

import (
	"context"
	"slices"
	"strings"
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
	// Caches loaded before the attribute was added may lack it: the
	// server reads attributes from the database until they expire.
	if !s.forcedSearchAttributeReads() || s.cacheSettled == nil {
		t.Fatal("Start added an attribute, yet the server already serves attributes from its caches")
	}
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

// TestStartedServerServesSearchAttributesFromItsCaches: when Start added no
// attribute at runtime (a new database has them from the start, and one
// that has them all needs none), the server stops reading attributes from
// the database on every use, which cost every upsert two reads; an upsert
// and a query on the attributes still work at once.
func TestStartedServerServesSearchAttributesFromItsCaches(t *testing.T) {
	opts := Options{DataDir: t.TempDir(), FrontendAddress: "127.0.0.1:0", UIAddress: UIDisabled, SearchAttributes: append(slices.Clone(testAttrs), completedKey.GetName())}
	for _, start := range []string{"new database", "same database again"} {
		s := startServer(t, opts)
		if s.forcedSearchAttributeReads() || s.cacheSettled != nil {
			t.Fatalf("%s: the server still reads search attributes from the database on every use", start)
		}
		c := dial(t, s)
		taskQueue := "cached-attributes-" + strings.ReplaceAll(start, " ", "-")
		w := worker.New(c, taskQueue, worker.Options{})
		w.RegisterWorkflow(upsertAddedWorkflow)
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: taskQueue, TaskQueue: taskQueue}, upsertAddedWorkflow)
		if err == nil {
			err = run.Get(ctx, nil)
		}
		if err != nil {
			t.Fatalf("%s: workflow upserting %s: %v", start, completedKey.GetName(), err)
		}
		query := "TodoCompleted = 7 AND TodoPending = 2 AND WorkflowId = '" + taskQueue + "'"
		for listCount(t, c, s.Namespace(), query) != 1 {
			if ctx.Err() != nil {
				t.Fatalf("%s: no execution matches %q", start, query)
			}
			time.Sleep(100 * time.Millisecond)
		}
		cancel()
		w.Stop()
		c.Close()
		stopServer(t, s)
	}
}
