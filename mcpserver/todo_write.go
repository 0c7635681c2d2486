package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/identity"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/tools"
)

// writeTool is todo_write exactly as the model inside a session is offered
// it (tools.Definitions, which `client schema` prints): same description,
// same input schema.
func writeTool() *mcp.Tool {
	for _, d := range tools.Definitions() {
		if d.Name == contract.ToolTodoWrite {
			return &mcp.Tool{Name: d.Name, Description: d.Description, InputSchema: json.RawMessage(d.Parameters)}
		}
	}
	panic("mcpserver: no todo_write among tools.Definitions()")
}

const (
	// writeTimeout bounds one attempt: validation and one local activity
	// take milliseconds, so a long wait means no worker is polling.
	writeTimeout = 30 * time.Second
	// writeAttempts bounds how often an unanswered write is sent again.
	writeAttempts = 3
)

// write sends the tool call's arguments, as received, to the session as the
// todo_write update: the session's validator and activity apply the seed's
// rules, so the result is the seed's to the byte. The SDK's own schema check
// is bypassed on purpose (this is the low-level AddTool): its messages are
// not the contract's.
func (b *Bound) write(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	raw := []byte(req.Params.Arguments)
	if len(raw) == 0 {
		raw = []byte("null")
	}
	if max := b.sessions.opts.MaxUpdateBytes; max > 0 && len(raw) >= max {
		// Temporal answers such an update with ResourceExhausted until the
		// deadline; at the default limits the list breaks a rule, whose
		// message is the answer.
		if _, err := todo.Parse(raw, todo.Limits{}); err != nil {
			return errorResult(todo.ErrorResult(err)), nil
		}
		return nil, fmt.Errorf("the list is %d bytes as JSON; Temporal takes at most %d in one update", len(raw), max)
	}
	// The writer header names the MCP client; the session records it as
	// source.by, and tells the agent and people who wrote.
	ctx = identity.With(ctx, writerName(req))
	updateID := "mcp-" + strings.ToLower(rand.Text()[:16])
	var data []byte
	var err error
	for attempt := 1; ; attempt++ {
		data, err = b.update(ctx, updateID, raw)
		_, notReady := errors.AsType[*serviceerror.WorkflowNotReady](err)
		if err == nil || !(isTimeout(err) || notReady) || ctx.Err() != nil || attempt == writeAttempts {
			break
		}
		b.sessions.opts.Logger.Warn("todo_write not answered; sending it again", "session", b.ID, "updateID", updateID, "error", err)
	}
	if appErr, ok := errors.AsType[*temporal.ApplicationError](err); ok {
		return errorResult(todo.ErrorResult(appErr)), nil
	}
	if _, gone := errors.AsType[*serviceerror.NotFound](err); gone {
		// The session ended: the list has no owner to be written to, which
		// is the seed's rule 11.
		return errorResult(todo.ErrorResult(todo.NoOwningSessionError())), nil
	}
	if err != nil {
		return nil, fmt.Errorf("todo_write on session %q: %w", b.ID, err)
	}
	var res todo.WriteResult
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("todo_write on session %q returned unexpected JSON: %w", b.ID, err)
	}
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: res.Message}},
		// The seed's canonical result, {todos, counts}; the text is what
		// the model reads.
		StructuredContent: struct {
			Todos  []todo.Item `json:"todos"`
			Counts todo.Counts `json:"counts"`
		}{nonNil(res.Todos), res.Counts},
	}, nil
}

func (b *Bound) update(ctx context.Context, updateID string, raw []byte) ([]byte, error) {
	uctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	h, err := b.sessions.opts.Client.UpdateWorkflow(uctx, client.UpdateWorkflowOptions{
		WorkflowID:   b.ID,
		UpdateName:   contract.UpdateTodoWrite,
		UpdateID:     updateID,
		Args:         []any{json.RawMessage(raw)},
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

// errorResult is a rejected call as the model sees it: the seed's exact
// "Error: ..." text, flagged as a tool error.
func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: true}
}

func nonNil(items []todo.Item) []todo.Item {
	if items == nil {
		return []todo.Item{}
	}
	return items
}

func isTimeout(err error) bool {
	_, updateTimeout := errors.AsType[*client.WorkflowUpdateServiceTimeoutOrCanceledError](err)
	_, deadline := errors.AsType[*serviceerror.DeadlineExceeded](err)
	return errors.Is(err, context.DeadlineExceeded) || updateTimeout || deadline
}
