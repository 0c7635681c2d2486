// Package sessiontest is what every test of agent todos shares: real Temporal
// servers configured as AgentSession needs them, sessions driven through the
// SDK client with the contract's names and raw JSON arguments, condition
// waits and a quiet logger. The tests in tests/, tests/e2e and the system
// benchmark in tests/bench all use it.
package sessiontest

import (
	"context"
	"encoding/json"

	"go.temporal.io/sdk/client"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/todo"
)

// Update sends an update with raw JSON arguments, as any program would, and
// waits for its result.
func Update(ctx context.Context, c client.Client, id, updateID, name string, args []byte, into any) error {
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   id,
		UpdateID:     updateID,
		UpdateName:   name,
		Args:         []any{json.RawMessage(args)},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return err
	}
	return h.Get(ctx, into)
}

// Write is one todo_write update.
func Write(ctx context.Context, c client.Client, id, updateID string, args []byte) (todo.WriteResult, error) {
	var res todo.WriteResult
	err := Update(ctx, c, id, updateID, contract.UpdateTodoWrite, args, &res)
	return res, err
}

// Query runs a query on the session's current run.
func Query(ctx context.Context, c client.Client, id, name string, into any, args ...any) error {
	v, err := c.QueryWorkflow(ctx, id, "", name, args...)
	if err != nil {
		return err
	}
	return v.Get(into)
}
