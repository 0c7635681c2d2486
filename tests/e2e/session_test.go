package e2e

import (
	"context"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/workflows"
)

func startSession(t *testing.T, c client.Client, id string) sessiontest.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: contract.TaskQueue},
		contract.WorkflowType, workflows.SessionInput{})
	if err != nil {
		t.Fatalf("start session %s: %v", id, err)
	}
	return sessiontest.Session{T: t, C: c, ID: id}
}
