package workflows

import (
	"cmp"
	"slices"

	"go.temporal.io/sdk/workflow"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
)

// registerHandlers sets every query, update and signal receiver a session
// answers; it runs before the session's first command.
func (s *session) registerHandlers(ctx workflow.Context) error {
	if err := workflow.SetQueryHandlerWithOptions(ctx, contract.QueryTodos, func() (todo.State, error) {
		return s.current, nil
	}, workflow.QueryHandlerOptions{Description: "The current todo list: the accepted write with the highest seq."}); err != nil {
		return err
	}
	if err := workflow.SetQueryHandlerWithOptions(ctx, contract.QueryTodoHistory, s.historyPage, workflow.QueryHandlerOptions{
		Description: `Accepted snapshots with their changes, oldest first, at most 1 MiB a page; optional {"afterSeq":N,"limit":M}.`,
	}); err != nil {
		return err
	}
	if err := workflow.SetQueryHandlerWithOptions(ctx, contract.QueryTodoDiff, s.diff, workflow.QueryHandlerOptions{
		Description: `What changed in the plan between two seqs: {"fromSeq":A,"toSeq":B} (toSeq 0: now).`,
	}); err != nil {
		return err
	}
	if err := workflow.SetQueryHandlerWithOptions(ctx, contract.QuerySessionLog, func(req sessionlog.PageRequest) ([]sessionlog.Event, error) {
		return sessionlog.Page(s.log, sessionlog.EventSeq, sessionlog.EventBytes, req), nil
	}, workflow.QueryHandlerOptions{Description: `Session events, oldest first, at most 1 MiB a page; optional {"afterSeq":N,"limit":M}.`}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, contract.UpdateTodoWrite, s.onTodoWriteUpdate, workflow.UpdateHandlerOptions{
		Validator:   s.validateTodoWrite,
		Description: `Replace the whole todo list: {"todos":[{"content":"...","status":"pending|in_progress|completed"}]}.`,
	}); err != nil {
		return err
	}
	if s.steer {
		if err := workflow.SetUpdateHandlerWithOptions(ctx, contract.UpdateTodoEdit, s.onTodoEditUpdate, workflow.UpdateHandlerOptions{
			Validator:   s.validateTodoEdit,
			Description: `Replace the whole todo list if it is still at expectedSeq: {"todos":[...],"expectedSeq":N,"note":"why"}.`,
		}); err != nil {
			return err
		}
	}
	if s.notify {
		if err := s.registerNotifyHandlers(ctx); err != nil {
			return err
		}
	}
	s.todoWriteSignals = workflow.GetSignalChannel(ctx, contract.SignalTodoWrite)
	s.userMessageSignals = workflow.GetSignalChannel(ctx, contract.SignalUserMessage)
	if s.integrity {
		workflow.Go(ctx, s.receiveSignals)
	} else {
		workflow.Go(ctx, s.receiveSignalsLegacy)
	}
	return s.registerAgentHandlers(ctx)
}

func snapshotSeq(sn *todo.Snapshot) int64 { return sn.Seq }

// snapshotIndex finds the snapshot recorded at seq.
func (s *session) snapshotIndex(seq int64) (int, bool) {
	return slices.BinarySearchFunc(s.history, seq, func(sn todo.Snapshot, seq int64) int {
		return cmp.Compare(sn.Seq, seq)
	})
}
