package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.temporal.io/api/serviceerror"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/payloads"
	"github.com/durabletodos/agenttodos/todo"
)

// ReadToolName is the tool that returns the current plan.
const ReadToolName = "todo_read"

// readSchema takes nothing: the session is the one this server is bound to.
const readSchema = `{"type":"object","properties":{},"additionalProperties":false}`

func readTool() *mcp.Tool {
	return &mcp.Tool{
		Name: ReadToolName,
		Description: `Read your current todo list: every item with its status, the counts, and the seq of the write that made it. ` +
			`People and other programs may have changed it since your last todo_write; build your next todo_write on this list.`,
		InputSchema: json.RawMessage(readSchema),
	}
}

// Plan is what todo_read and the resource return: the todos query's state,
// named with its session.
type Plan struct {
	Session   string      `json:"session"`
	Todos     []todo.Item `json:"todos"`
	Counts    todo.Counts `json:"counts"`
	Seq       int64       `json:"seq"`
	UpdatedAt time.Time   `json:"updatedAt"`
}

const readTimeout = 30 * time.Second

func (b *Bound) read(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if args := bytes.TrimSpace(req.Params.Arguments); len(args) > 0 && !bytes.Equal(args, []byte("{}")) && !bytes.Equal(args, []byte("null")) {
		return errorResult("Error: todo_read takes no arguments"), nil
	}
	plan, err := b.plan(ctx)
	if _, gone := errors.AsType[*serviceerror.NotFound](err); gone {
		return errorResult(fmt.Sprintf("Error: no agent session %q", b.ID)), nil
	}
	if err != nil {
		return nil, err
	}
	text, err := payloads.Marshal(plan)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}, StructuredContent: json.RawMessage(text)}, nil
}

// plan is the todos query of the bound session.
func (b *Bound) plan(ctx context.Context) (Plan, error) {
	qctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	v, err := b.sessions.opts.Client.QueryWorkflow(qctx, b.ID, "", contract.QueryTodos)
	if err != nil {
		return Plan{}, err
	}
	var st todo.State
	if err := v.Get(&st); err != nil {
		return Plan{}, err
	}
	return Plan{Session: b.ID, Todos: nonNil(st.Todos), Counts: st.Counts, Seq: st.Seq, UpdatedAt: st.UpdatedAt}, nil
}
