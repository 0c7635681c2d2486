package workflows

import (
	"errors"
	"strconv"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
)

// toolHandler runs one tool call inside the workflow and returns the exact
// text the model sees as the tool's result.
type toolHandler func(s *session, ctx workflow.Context, call sessionlog.Call) string

// toolHandlers maps every tool offered to the model (tools.Definitions) to
// the code that runs it; adding a tool adds a definition and a line here.
var toolHandlers = map[string]toolHandler{
	contract.ToolTodoWrite: (*session).runTodoWrite,
}

func (s *session) runTool(ctx workflow.Context, call sessionlog.Call) string {
	run, ok := toolHandlers[call.Name]
	if !ok {
		return "Error: unknown tool " + strconv.Quote(call.Name)
	}
	return run(s, ctx, call)
}

// runTodoWrite applies the model's todo_write, unless the plan changed from
// outside since the model last saw it: the model's list, built on an older
// plan, would silently undo that change. It is then told who changed the plan
// and shown the current list; its next request shows it that result, so a
// write it builds on it then applies. Another todo_write of the same message
// was built on the old plan too, and is rejected alike.
func (s *session) runTodoWrite(ctx workflow.Context, call sessionlog.Call) string {
	expect := int64(noCheck)
	if s.steer {
		expect = s.viewSeq
	}
	res, err := s.writeChecked(ctx, s.takeTicket(), call.Arguments, todo.Source{Kind: todo.SourceModel, ID: call.ID}, expect)
	if appErr, ok := errors.AsType[*temporal.ApplicationError](err); ok && appErr.Type() == todo.ErrTypeStaleWrite {
		s.toldSeq = s.current.Seq
		return todo.StaleWriteResult(err, s.current.Todos)
	}
	if err != nil {
		return todo.ErrorResult(err)
	}
	s.viewSeq = res.Seq
	return res.Message
}
