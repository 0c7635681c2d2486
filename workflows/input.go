package workflows

import (
	"time"

	"github.com/durabletodos/agenttodos/notify"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
)

// SessionInput starts an AgentSession. Every field is optional: a session
// with no prompt simply owns a todo list that people and programs write.
// Values out of the bounds below fail the session at start (input_bounds.go).
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
	// Subscribers are webhooks told of the session's changes from its start
	// (the subscribe and unsubscribe updates change them later). Their
	// secretName must be in the worker's webhook secrets file, or their
	// notifications are given up.
	Subscribers []notify.Subscriber `json:"subscribers,omitempty"`

	// Carry is what a previous run hands to the next one on continue-as-new.
	Carry *Carry `json:"carry,omitempty"`
}

// Carry is the state a session keeps across continue-as-new: seq keeps
// growing, the list and the tail of its history survive, and so do the
// conversation that remains after trimming, the messages still queued and
// the update IDs already answered. It is bounded (carry.go) whatever the
// content, and holds each list once.
type Carry struct {
	Seq int64 `json:"seq"`
	// Snapshots is the newest part of todo_history, oldest first; the last
	// one is the current list.
	Snapshots        []CarriedSnapshot  `json:"snapshots,omitempty"`
	Log              []sessionlog.Event `json:"log"`
	ConversationFrom int64              `json:"conversationFrom"`
	ScriptTurn       int                `json:"scriptTurn"`
	Runs             int                `json:"runs"`
	Prompts          int                `json:"prompts"`
	// Resuming says the previous run stopped between two model turns of a
	// prompt nobody was waiting on; the new run carries on with it.
	Resuming  bool `json:"resuming,omitempty"`
	TurnsUsed int  `json:"turnsUsed,omitempty"`
	// Inbox holds the user messages nobody waits on that were queued when
	// the previous run ended, in order.
	Inbox []string `json:"inbox,omitempty"`
	// Signals counts todo_write signals for the life of the session, so
	// signal-<n> source IDs never repeat.
	Signals int `json:"signals,omitempty"`
	// Answered holds the newest todo_write and prompt update IDs and what
	// they returned.
	Answered []AnsweredUpdate `json:"answered,omitempty"`
	// Outside holds the writes from outside the model has not been told of
	// yet (at most maxOutsideKept), so its next request names their writers.
	Outside []todo.Source `json:"outside,omitempty"`
	// Subscribers are the session's webhooks, each with the notifications
	// it has yet to get (the one in flight first: it is sent again).
	Subscribers []CarriedSubscriber `json:"subscribers,omitempty"`

	// Current and History are how runs before changeSessionIntegrity carried
	// the list; a run still reads them.
	Current *todo.State     `json:"current,omitempty"`
	History []todo.Snapshot `json:"history,omitempty"`
}

// CarriedSnapshot is a todo.Snapshot with its list packed (todo.Packed) and
// its counts left to be recomputed.
type CarriedSnapshot struct {
	Seq    int64       `json:"seq"`
	Todos  todo.Packed `json:"todos"`
	At     time.Time   `json:"at"`
	Source todo.Source `json:"source"`
}
