package e2e

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/workflows"
)

// session talks to one AgentSession through the SDK client, with the
// contract's names and raw JSON arguments, as any program would.
type session struct {
	t  *testing.T
	c  client.Client
	id string
}

func startSession(t *testing.T, c client.Client, id string) *session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: contract.TaskQueue},
		contract.WorkflowType, workflows.SessionInput{})
	if err != nil {
		t.Fatalf("start session %s: %v", id, err)
	}
	return &session{t: t, c: c, id: id}
}

// on is the same session through another client, e.g. after a restart.
func (s *session) on(c client.Client) *session { return &session{t: s.t, c: c, id: s.id} }

func (s *session) write(ctx context.Context, updateID, args string) (todo.WriteResult, error) {
	h, err := s.c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   s.id,
		UpdateID:     updateID,
		UpdateName:   contract.UpdateTodoWrite,
		Args:         []any{json.RawMessage(args)},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return todo.WriteResult{}, err
	}
	var res todo.WriteResult
	return res, h.Get(ctx, &res)
}

// mustWrite is write for the steps that are not what a test is about.
func (s *session) mustWrite(updateID, args string) todo.WriteResult {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.write(ctx, updateID, args)
	if err != nil {
		s.t.Fatalf("todo_write %s: %v", updateID, err)
	}
	return res
}

func (s *session) todos() todo.State {
	s.t.Helper()
	var st todo.State
	s.query(contract.QueryTodos, &st)
	return st
}

// history reads the whole todo_history a page at a time, as a client of a
// long session must.
func (s *session) history() []todo.Snapshot {
	s.t.Helper()
	var all []todo.Snapshot
	req := sessionlog.PageRequest{Limit: 200}
	for {
		var page []todo.Snapshot
		s.query(contract.QueryTodoHistory, &page, req)
		all = append(all, page...)
		if len(page) < req.Limit {
			return all
		}
		req.AfterSeq = page[len(page)-1].Seq
	}
}

func (s *session) query(name string, into any, args ...any) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	v, err := s.c.QueryWorkflow(ctx, s.id, "", name, args...)
	if err != nil {
		s.t.Fatalf("query %s on %s: %v", name, s.id, err)
	}
	if err := v.Get(into); err != nil {
		s.t.Fatalf("decode %s: %v", name, err)
	}
}
