// Package activities holds the side of the agent runtime that is not
// deterministic workflow code: validating a todo_write and calling the model.
package activities

import (
	"context"

	"go.temporal.io/sdk/activity"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/todo"
)

// TodoWriteRequest is the input of the TodoWrite activity: the tool-call
// arguments verbatim (a string, so malformed JSON from a model still travels)
// and where the call came from.
type TodoWriteRequest struct {
	Arguments string      `json:"arguments"`
	Source    todo.Source `json:"source"`
}

// Todos runs todo_write calls; one value serves every session of a worker.
type Todos struct {
	Limits todo.Limits
}

// TodoWrite validates one todo_write call and returns its counts and
// model-facing message. The workflow assigns the seq when it records the
// result, and fills in the list from the arguments it already holds: the
// result is recorded in history on every write, and repeating the list there
// would double what each write costs. A bad list fails with InvalidTodos, a
// caller that is not an AgentSession workflow with NoOwningSession, both
// non-retryable.
func (t *Todos) TodoWrite(ctx context.Context, req TodoWriteRequest) (todo.WriteResult, error) {
	items, err := todo.Parse([]byte(req.Arguments), t.Limits)
	if err != nil {
		return todo.WriteResult{}, err
	}
	if !ownedBySession(activity.GetInfo(ctx)) {
		return todo.WriteResult{}, todo.NoOwningSessionError()
	}
	counts := todo.CountOf(items)
	return todo.WriteResult{Counts: counts, Message: todo.Message(counts)}, nil
}

// ownedBySession is rule 11: a standalone activity has no workflow at all,
// and another workflow type has no session to hold the list.
func ownedBySession(info activity.Info) bool {
	return info.WorkflowType != nil &&
		info.WorkflowType.Name == contract.WorkflowType &&
		info.WorkflowExecution.ID != ""
}
