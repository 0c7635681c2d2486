package workflows

import (
	"time"

	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
)

// SessionInput starts an AgentSession. Every field is optional: a session
// with no prompt simply owns a todo list that people and programs write.
type SessionInput struct {
	// Prompt is a first user message; the agent starts working on it at once.
	Prompt string `json:"prompt,omitempty"`
	// Model names the chat model: "scripted" replays Script offline; anything
	// else is sent to the OpenAI-compatible endpoint (AGENT_MODEL when empty).
	Model string `json:"model,omitempty"`
	// Script is the scripted model's assistant turns, in order.
	Script []sessionlog.AssistantData `json:"script,omitempty"`
	// ScriptThinkTime is how long each scripted turn takes, so a person can
	// watch an offline session's plan change; tests leave it at zero.
	ScriptThinkTime time.Duration `json:"scriptThinkTime,omitempty"`
	// SystemPrompt replaces the default system prompt.
	SystemPrompt string `json:"systemPrompt,omitempty"`
	// MaxTurnsPerPrompt stops a model that never finishes (default 25).
	MaxTurnsPerPrompt int `json:"maxTurnsPerPrompt,omitempty"`
	// ConversationBudgetBytes bounds the conversation sent to the model; the
	// oldest turns are dropped past it (default 256 KiB).
	ConversationBudgetBytes int `json:"conversationBudgetBytes,omitempty"`
	// ContinueAsNewAfterEvents continues the session as new once its history
	// holds this many events, even before Temporal suggests it (default 10000).
	ContinueAsNewAfterEvents int `json:"continueAsNewAfterEvents,omitempty"`

	// Carry is what a previous run hands to the next one on continue-as-new.
	Carry *Carry `json:"carry,omitempty"`
}

// Carry is the state a session keeps across continue-as-new: seq keeps
// growing, the list and the tail of its history survive, and so does the
// conversation that remains after trimming.
type Carry struct {
	Seq              int64              `json:"seq"`
	Current          todo.State         `json:"current"`
	History          []todo.Snapshot    `json:"history"`
	Log              []sessionlog.Event `json:"log"`
	ConversationFrom int64              `json:"conversationFrom"`
	ScriptTurn       int                `json:"scriptTurn"`
	Runs             int                `json:"runs"`
	Prompts          int                `json:"prompts"`
	// Resuming says the previous run stopped between two model turns of a
	// prompt nobody was waiting on; the new run carries on with it.
	Resuming  bool `json:"resuming,omitempty"`
	TurnsUsed int  `json:"turnsUsed,omitempty"`
}
