// Package workflows holds the AgentSession workflow: the durable owner of an
// agent's todo list and conversation.
package workflows

import (
	"go.temporal.io/sdk/temporal"

	"github.com/durabletodos/agenttodos/sessionlog"
)

// The public contract's Temporal names (README, "Contract").
const (
	TaskQueue    = "agent-sessions"
	WorkflowType = "AgentSession"

	// UpdateTodoWrite and SignalTodoWrite take TodoWriteArgs, exactly the
	// model's tool-call arguments.
	UpdateTodoWrite = "todo_write"
	SignalTodoWrite = "todo_write"

	QueryTodos       = "todos"
	QueryTodoHistory = "todo_history"
	QuerySessionLog  = sessionlog.QueryName

	// UpdatePrompt runs one agent turn and returns the assistant's final text;
	// SignalUserMessage queues a user message without waiting.
	UpdatePrompt      = "prompt"
	SignalUserMessage = "user_message"

	ActivityTodoWrite = "TodoWrite"
	ActivityModelTurn = "ModelTurn"
)

// Search attributes upserted on every accepted write, so
// `temporal workflow list --query 'TodoInProgress > 0'` finds busy agents.
var (
	SearchAttributePending    = temporal.NewSearchAttributeKeyInt64("TodoPending")
	SearchAttributeInProgress = temporal.NewSearchAttributeKeyInt64("TodoInProgress")
	SearchAttributeCompleted  = temporal.NewSearchAttributeKeyInt64("TodoCompleted")
)

// SearchAttributeNames lists the search attributes the workflow upserts, for
// the worker's start-up check and for registering them on a cluster.
var SearchAttributeNames = []string{
	SearchAttributePending.GetName(),
	SearchAttributeInProgress.GetName(),
	SearchAttributeCompleted.GetName(),
}
