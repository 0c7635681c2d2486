package tests

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
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
	w := worker.New(c, "no-sa", sessiontest.WorkerOptions())
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

// TestSearchAttributesFollowTheCounts: each write upserts only the counts
// that changed, and none when none did; the visibility record (what
// `temporal workflow list` filters on) always holds all three, right.
func TestSearchAttributesFollowTheCounts(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	run := h.start("sa-follow-counts", workflows.SessionInput{})
	s := h.on(run.GetID())
	steps := []struct {
		list    string
		want    [3]int64 // pending, in progress, completed
		changed []string // attributes the write's upsert carries
	}{
		{`[{"content":"a","status":"in_progress"},{"content":"b","status":"pending"}]`, [3]int64{1, 1, 0},
			[]string{"TodoInProgress", "TodoPending"}},
		{`[{"content":"a","status":"completed"},{"content":"b","status":"in_progress"}]`, [3]int64{0, 1, 1},
			[]string{"TodoCompleted", "TodoPending"}},
		{`[{"content":"a","status":"completed"},{"content":"c","status":"in_progress"}]`, [3]int64{0, 1, 1}, nil},
		{`[{"content":"a","status":"completed"},{"content":"c","status":"completed"}]`, [3]int64{0, 0, 2},
			[]string{"TodoCompleted", "TodoInProgress"}},
	}
	s.Todos()                                       // the session's first task has run
	seen := len(upsertedNames(t, h.c, run.GetID())) // and upserted zeros
	for i, step := range steps {
		s.MustWrite("", `{"todos":`+step.list+`}`)
		upserts := upsertedNames(t, h.c, run.GetID())[seen:]
		seen += len(upserts)
		switch {
		case step.changed == nil && len(upserts) != 0:
			t.Errorf("write %d changed no count but upserted %v", i+1, upserts)
		case step.changed != nil && (len(upserts) != 1 || !slices.Equal(upserts[0], step.changed)):
			t.Errorf("write %d upserted %v, want [%v]", i+1, upserts, step.changed)
		}
		desc, err := h.c.DescribeWorkflowExecution(h.ctx(), run.GetID(), "")
		if err != nil {
			t.Fatal(err)
		}
		got := [3]int64{}
		for j, key := range []temporal.SearchAttributeKeyInt64{contract.SearchAttributePending, contract.SearchAttributeInProgress, contract.SearchAttributeCompleted} {
			p := desc.GetWorkflowExecutionInfo().GetSearchAttributes().GetIndexedFields()[key.GetName()]
			if p == nil || converter.GetDefaultDataConverter().FromPayload(p, &got[j]) != nil {
				t.Fatalf("write %d: %s missing from the visibility record", i+1, key.GetName())
			}
		}
		if got != step.want {
			t.Errorf("write %d: search attributes (pending, in progress, completed) %v, want %v", i+1, got, step.want)
		}
	}
}

// upsertedNames lists, per UpsertWorkflowSearchAttributes event that sets
// todo counts, the counts it set, sorted.
func upsertedNames(t *testing.T, c client.Client, id string) [][]string {
	t.Helper()
	var out [][]string
	it := c.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		a := e.GetUpsertWorkflowSearchAttributesEventAttributes()
		if a == nil {
			continue
		}
		// GetVersion upserts TemporalChangeVersion on its own.
		names := slices.DeleteFunc(slices.Sorted(maps.Keys(a.GetSearchAttributes().GetIndexedFields())),
			func(n string) bool { return !strings.HasPrefix(n, "Todo") })
		if len(names) > 0 {
			out = append(out, names)
		}
	}
	return out
}
