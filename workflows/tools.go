package workflows

import (
	"strconv"

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

func (s *session) runTodoWrite(ctx workflow.Context, call sessionlog.Call) string {
	res, err := s.write(ctx, s.takeTicket(), call.Arguments, todo.Source{Kind: todo.SourceModel, ID: call.ID})
	if err != nil {
		return todo.ErrorResult(err)
	}
	return res.Message
}
