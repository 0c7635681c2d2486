package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
)

func (s *session) registerHandlers(ctx workflow.Context) error {
	if err := workflow.SetQueryHandlerWithOptions(ctx, QueryTodos, func() (todo.State, error) {
		return s.current, nil
	}, workflow.QueryHandlerOptions{Description: "The current todo list: the accepted write with the highest seq."}); err != nil {
		return err
	}
	if err := workflow.SetQueryHandlerWithOptions(ctx, QueryTodoHistory, func(req sessionlog.PageRequest) ([]todo.Snapshot, error) {
		return sessionlog.Page(s.history, func(e *todo.Snapshot) int64 { return e.Seq }, req), nil
	}, workflow.QueryHandlerOptions{Description: `Accepted snapshots, oldest first; optional {"afterSeq":N,"limit":M}.`}); err != nil {
		return err
	}
	if err := workflow.SetQueryHandlerWithOptions(ctx, QuerySessionLog, func(req sessionlog.PageRequest) ([]sessionlog.Event, error) {
		return sessionlog.Page(s.log, func(e *sessionlog.Event) int64 { return e.Seq }, req), nil
	}, workflow.QueryHandlerOptions{Description: `Session events, oldest first; optional {"afterSeq":N,"limit":M}.`}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateTodoWrite, s.onTodoWriteUpdate, workflow.UpdateHandlerOptions{
		Validator:   s.validateTodoWrite,
		Description: `Replace the whole todo list: {"todos":[{"content":"...","status":"pending|in_progress|completed"}]}.`,
	}); err != nil {
		return err
	}
	workflow.Go(ctx, s.receiveSignals)
	return s.registerAgentHandlers(ctx)
}
