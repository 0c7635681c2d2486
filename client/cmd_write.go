package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/embedded"
	"github.com/durabletodos/agenttodos/todo"
)

// writeTimeout bounds a todo_write update: validation and one local
// activity take milliseconds, so a long wait means no worker is running.
const writeTimeout = 30 * time.Second

// writeAttempts bounds how often a timed-out write is sent again.
const writeAttempts = 3

func (a *app) writeCommand() *cobra.Command {
	var src listSource
	var updateID string
	cmd := &cobra.Command{
		Use:   "write SESSION [-]",
		Short: "Replace the plan (update todo_write) and print the result",
		Long: `Replace the plan with the todo_write update and print the result. A
rejected list prints exactly "Error: <message>" on stderr and exits 1.`,
		Example: `  client write demo --todo "doing:Read the code" --todo "p:Write the fix"
  client write demo --file plan.json
  echo '{"todos":[]}' | client write demo`,
		Args: positional(true, "SESSION"),
		RunE: func(cmd *cobra.Command, args []string) error {
			raw, err := src.args(args[1:], a.stdin, a.stdinPiped)
			if err != nil {
				return err
			}
			return a.write(cmd.Context(), args[0], cmp.Or(updateID, newUpdateID()), raw)
		},
	}
	src.register(cmd.Flags())
	cmd.Flags().StringVar(&updateID, "update-id", "", "update `ID`; a retry with the same ID is applied once (default: a new one)")
	return cmd
}

func (a *app) write(ctx context.Context, id, updateID string, raw []byte) error {
	if err := checkUpdateSize(raw); err != nil {
		return err
	}
	c, err := a.connect()
	if err != nil {
		return err
	}
	// A write that times out, or that the server dropped before the session
	// accepted it (WorkflowNotReady: the workflow task carrying it failed on
	// the server), is sent again with the same update ID: the session
	// applies it once, however many times it arrives.
	var data []byte
	for attempt := 1; ; attempt++ {
		data, err = a.sendUpdate(ctx, c, id, contract.UpdateTodoWrite, updateID, raw)
		_, notReady := errors.AsType[*serviceerror.WorkflowNotReady](err)
		if err == nil || !(isTimeout(err) || notReady) || ctx.Err() != nil || attempt == writeAttempts {
			break
		}
		fmt.Fprintf(a.stderr, "todo_write not answered (%v); sending it again with update ID %s\n", err, updateID)
	}
	if err != nil {
		if rej, ok := rejected(err); ok {
			return rej
		}
		return a.sessionError(id, err)
	}
	// For a program, the result goes out as the session wrote it, read or not.
	var res todo.WriteResult
	if err := json.Unmarshal(data, &res); err != nil && a.out.text() {
		return fmt.Errorf("todo_write returned unexpected JSON: %w", err)
	}
	return a.out.result(res.Message+"\n"+renderPlan(todo.State{Todos: res.Todos, Counts: res.Counts, Seq: res.Seq}, a.term), json.RawMessage(data))
}

// sendUpdate sends one todo_write or todo_edit update and returns the
// result's JSON as the session wrote it.
func (a *app) sendUpdate(ctx context.Context, c client.Client, id, name, updateID string, raw []byte) ([]byte, error) {
	uctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	h, err := c.UpdateWorkflow(uctx, client.UpdateWorkflowOptions{
		WorkflowID:   id,
		UpdateName:   name,
		UpdateID:     updateID,
		Args:         []any{rawJSON(raw)},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return nil, err
	}
	var result converter.RawValue
	if err := h.Get(uctx, &result); err != nil {
		return nil, err
	}
	return result.Payload().GetData(), nil
}

// checkUpdateSize refuses a list the server would never deliver: an update
// request over history.maxInFlightUpdatePayloads is answered with
// ResourceExhausted, which the SDK retries until the deadline. Such a list
// breaks a rule at the default limits, and that rule's message is the answer.
func checkUpdateSize(raw []byte) error {
	if len(raw) < embedded.MaxInFlightUpdatePayloads {
		return nil
	}
	if _, err := todo.Parse(raw, todo.Limits{}); err != nil {
		rej, _ := rejected(err)
		return rej
	}
	return &exitError{code: 1, msg: fmt.Sprintf("client: the list is %d bytes as JSON; Temporal takes at most %d in one update", len(raw), embedded.MaxInFlightUpdatePayloads)}
}
