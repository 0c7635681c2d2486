// Package contract is the one home of what users and other programs rely on:
// the Temporal names of agent todos, its search attributes and its defaults.
// Every other package imports these; none repeats them. README's "Contract"
// section documents each.
package contract

// Temporal names.
const (
	TaskQueue    = "agent-sessions"
	WorkflowType = "AgentSession"

	// UpdateTodoWrite and SignalTodoWrite take TodoWriteArgs, exactly the
	// model's tool-call arguments.
	UpdateTodoWrite = "todo_write"
	SignalTodoWrite = "todo_write"

	QueryTodos       = "todos"
	QueryTodoHistory = "todo_history"
	QuerySessionLog  = "session_log"

	// UpdatePrompt runs one agent turn and returns the assistant's final text;
	// SignalUserMessage queues a user message without waiting.
	UpdatePrompt      = "prompt"
	SignalUserMessage = "user_message"

	ActivityTodoWrite = "TodoWrite"
	ActivityModelTurn = "ModelTurn"

	// ToolTodoWrite is the tool the model calls, routed to ActivityTodoWrite.
	ToolTodoWrite = "todo_write"
)
