package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/workflows"
)

// modelThinkTime is how long the model takes to answer. It is longer than
// activities.HeartbeatInterval, so the turn also heartbeats while its worker
// is stopping.
const modelThinkTime = 6 * time.Second

// TestSIGTERMLetsTheModelTurnFinish stops a worker with SIGTERM, as a
// service manager does, while a model turn waits for a slow model. The
// worker says it finishes in-flight tasks, so the turn must complete on that
// worker: the model's answer is read, not thrown away and paid for twice;
// ModelTurn completes at its first attempt with the stopping worker's
// identity; and the process exits 0 only after that. A worker started later
// then finishes the prompt with that answer, without asking the model again.
//
// The stopping worker runs on a configured cluster (another worker's
// embedded server), so the cluster and its history outlive it.
func TestSIGTERMLetsTheModelTurnFinish(t *testing.T) {
	t.Parallel()
	const (
		taskQueue = "graceful-stop"
		id        = "graceful-stop"
		answer    = "Answered while the worker was stopping."
	)
	cluster := newWorkerConfig(t)
	startWorker(t, "cluster", cluster)
	c := dial(t, cluster.Frontend)
	model := newSlowChatServer(t, modelThinkTime, answer)

	onCluster := newWorkerConfig(t)
	onCluster.Env = append(model.env(),
		"TEMPORAL_ADDRESS="+cluster.Frontend,
		"TEMPORAL_NAMESPACE="+namespaceName,
		"AGENT_TASK_QUEUE="+taskQueue,
	)
	stopping := startWorker(t, "stopping", onCluster)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: taskQueue},
		contract.WorkflowType, workflows.SessionInput{}); err != nil {
		t.Fatal(err)
	}
	prompt, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: id, UpdateName: contract.UpdatePrompt, Args: []any{"Say something slowly"},
		WaitForStage: client.WorkflowUpdateStageAccepted,
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-model.arrived:
	case <-ctx.Done():
		t.Fatal("the model was never asked")
	}

	signalled := time.Now()
	stopping.Stop() // SIGTERM; fails the test unless the process exits 0
	t.Logf("worker exited %s after SIGTERM", time.Since(signalled).Round(time.Millisecond))

	// The process is gone, so the model request has ended one way or the
	// other; give the handler a moment to record which.
	select {
	case <-model.finished:
	case <-time.After(5 * time.Second):
		t.Fatal("the model request neither answered nor abandoned after the worker exited")
	}
	if requests, answered, abandoned := model.counts(); requests != 1 || answered != 1 || abandoned != 0 {
		t.Fatalf("model requests: %d received, %d answered, %d abandoned; want the one request answered "+
			"before the worker exited", requests, answered, abandoned)
	}

	// The completion was reported before exit: the history already has it.
	turn := modelTurn(t, c, id)
	switch {
	case turn.completed == nil:
		t.Fatalf("ModelTurn has not completed after the worker exited (started: %v)", turn.started)
	case turn.started.GetAttempt() != 1:
		t.Errorf("ModelTurn completed at attempt %d, want 1", turn.started.GetAttempt())
	}
	if want := fmt.Sprintf("%d@", stopping.cmd.Process.Pid); !strings.HasPrefix(turn.completed.GetIdentity(), want) {
		t.Errorf("ModelTurn completed by %q, want the stopping worker (identity %s…)", turn.completed.GetIdentity(), want)
	}

	// Nothing polls the task queue now; a new worker finishes the prompt
	// with the answer already in history.
	startWorker(t, "successor", onCluster)
	var got string
	if err := prompt.Get(ctx, &got); err != nil {
		t.Fatalf("prompt after the restart: %v", err)
	}
	if got != answer {
		t.Errorf("prompt answered %q, want %q", got, answer)
	}
	if requests, _, _ := model.counts(); requests != 1 {
		t.Errorf("the model was asked %d times, want once", requests)
	}
}

// modelTurnEvents are the history events of a session's first ModelTurn.
type modelTurnEvents struct {
	started   *history.ActivityTaskStartedEventAttributes
	completed *history.ActivityTaskCompletedEventAttributes
}

func modelTurn(t *testing.T, c client.Client, id string) modelTurnEvents {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var turn modelTurnEvents
	scheduled := int64(0)
	it := c.GetWorkflowHistory(ctx, id, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatalf("history of %s: %v", id, err)
		}
		switch {
		case scheduled == 0 && e.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName() == contract.ActivityModelTurn:
			scheduled = e.GetEventId()
		case scheduled != 0 && e.GetActivityTaskStartedEventAttributes().GetScheduledEventId() == scheduled:
			turn.started = e.GetActivityTaskStartedEventAttributes()
		case scheduled != 0 && e.GetActivityTaskCompletedEventAttributes().GetScheduledEventId() == scheduled:
			turn.completed = e.GetActivityTaskCompletedEventAttributes()
		}
	}
	if scheduled == 0 {
		t.Fatalf("history of %s has no %s", id, contract.ActivityModelTurn)
	}
	return turn
}
