package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/temporal"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/payloads"
	"github.com/durabletodos/agenttodos/todo"
)

// editArgs is the todo_edit update's argument.
type editArgs struct {
	Todos       []todo.Item `json:"todos"`
	ExpectedSeq int64       `json:"expectedSeq"`
	Note        string      `json:"note,omitempty"`
}

// conflictError is a todo_edit the session turned down because the plan was
// no longer at the seq the edit was made on.
type conflictError struct{ msg string }

func (e *conflictError) Error() string { return e.msg }

// edit sends one todo_edit of items made on the plan at seq expected. A
// timed-out or dropped attempt is sent again with the same update ID, as
// write does; a conflict comes back as *conflictError, a rejected list as
// the contract's `Error: <message>`.
func (a *app) edit(ctx context.Context, id string, items []todo.Item, expected int64, note string) ([]byte, todo.WriteResult, error) {
	var res todo.WriteResult
	raw, err := payloads.Marshal(editArgs{Todos: items, ExpectedSeq: expected, Note: note})
	if err != nil {
		return nil, res, err
	}
	c, err := a.connect()
	if err != nil {
		return nil, res, err
	}
	updateID := newUpdateID()
	var data []byte
	for attempt := 1; ; attempt++ {
		data, err = a.sendUpdate(ctx, c, id, contract.UpdateTodoEdit, updateID, raw)
		_, notReady := errors.AsType[*serviceerror.WorkflowNotReady](err)
		if err == nil || !(isTimeout(err) || notReady) || ctx.Err() != nil || attempt == writeAttempts {
			break
		}
		fmt.Fprintf(a.stderr, "todo_edit not answered (%v); sending it again with update ID %s\n", err, updateID)
	}
	if err != nil {
		if appErr, ok := errors.AsType[*temporal.ApplicationError](err); ok && appErr.Type() == todo.ErrTypeEditConflict {
			return nil, res, &conflictError{msg: appErr.Message()}
		}
		if rej, ok := rejected(err); ok {
			return nil, res, rej
		}
		return nil, res, a.sessionError(id, err)
	}
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, res, fmt.Errorf("todo_edit returned unexpected JSON: %w", err)
	}
	return data, res, nil
}

// printEdit prints an applied edit: what it changed and the plan now.
func (a *app) printEdit(before []todo.Item, data []byte, res todo.WriteResult) error {
	p := palette(a.term.color)
	text := res.Message + "\n"
	for _, l := range changeLines(todo.Diff(before, res.Todos), "", p) {
		text += "  " + l + "\n"
	}
	return a.out.result(text+renderPlan(todo.State{Todos: res.Todos, Counts: res.Counts, Seq: res.Seq}, a.term), json.RawMessage(data))
}
