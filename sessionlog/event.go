// Package sessionlog is the session log of an agent session: every user
// message, assistant message, tool call, tool result and todo write, in seq
// order, so a UI (or the model's next request) can be rebuilt from it alone.
package sessionlog

import (
	"encoding/json"
	"time"

	"github.com/durabletodos/agenttodos/todo"
)

// Type names what an event records.
type Type string

// The event types of the contract, plus todo/reminder: the plan as the model
// is reminded of it after its conversation was trimmed, continued as new, or
// its plan changed from outside.
const (
	UserMessage      Type = "user/message"
	AssistantMessage Type = "assistant/message"
	ToolCall         Type = "tool/call"
	ToolResult       Type = "tool/result"
	TodoWrite        Type = "todo/write"
	TodoRejected     Type = "todo/rejected"
	TodoReminder     Type = "todo/reminder"
	// TurnFailed records a prompt the agent could not finish (the model
	// refused the request, or the turn limit was reached); data: MessageData.
	TurnFailed Type = "turn/failed"
	// UserRejected records a user_message signal that was not queued (empty
	// or too long); data: UserRejectedData.
	UserRejected Type = "user/rejected"
	// NotifyDelivered and NotifyGivenUp record what became of a notification
	// to a subscriber; data: NotifyData.
	NotifyDelivered Type = "notify/delivered"
	NotifyGivenUp   Type = "notify/given_up"
)

// Event is one entry of the log. Data's shape depends on Type (see the
// *Data types below).
type Event struct {
	Seq  int64           `json:"seq"`
	Type Type            `json:"type"`
	At   time.Time       `json:"at"`
	Data json.RawMessage `json:"data"`
}

// MessageData is the data of user/message.
type MessageData struct {
	Text string `json:"text"`
}

// Call is one tool call of an assistant message; Arguments is the raw JSON
// text the model produced, possibly malformed.
type Call struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// AssistantData is the data of assistant/message.
type AssistantData struct {
	Content   string `json:"content"`
	ToolCalls []Call `json:"toolCalls,omitempty"`
}

// ToolCallData is the data of tool/call.
type ToolCallData = Call

// ToolResultData is the data of tool/result: the exact text the model sees.
type ToolResultData struct {
	ToolCallID string `json:"toolCallId"`
	Name       string `json:"name"`
	Content    string `json:"content"`
}

// TodoWriteData is the data of todo/write.
type TodoWriteData struct {
	Todos  []todo.Item `json:"todos"`
	Source todo.Source `json:"source"`
}

// TodoRejectedData is the data of todo/rejected: a write that was not
// applied. The rejected arguments are kept by size, SHA-256 and a prefix of at
// most 1 KiB: they can be megabytes, and the log is read back by queries and
// model turns that must stay far below Temporal's limits.
type TodoRejectedData struct {
	Error           string      `json:"error"`
	Source          todo.Source `json:"source"`
	ArgumentsBytes  int         `json:"argumentsBytes"`
	ArgumentsSHA256 string      `json:"argumentsSha256"`
	ArgumentsPrefix string      `json:"argumentsPrefix"`
}

// UserRejectedData is the data of user/rejected, kept like TodoRejectedData.
type UserRejectedData struct {
	Error      string `json:"error"`
	TextBytes  int    `json:"textBytes"`
	TextSHA256 string `json:"textSha256"`
	TextPrefix string `json:"textPrefix"`
}

// ReminderReason says why the model is reminded of its plan.
type ReminderReason string

// Why a reminder is sent.
const (
	ReminderChangedOutside ReminderReason = "changed-outside"
	ReminderContinuedAsNew ReminderReason = "continued-as-new"
	ReminderTrimmed        ReminderReason = "conversation-trimmed"
)

// TodoReminderData is the data of todo/reminder.
type TodoReminderData struct {
	Reason ReminderReason `json:"reason"`
	Todos  []todo.Item    `json:"todos"`
	// Changes are the writes from outside since the model's previous
	// request, oldest first: who made them and why, for the model to read.
	Changes []todo.Source `json:"changes,omitempty"`
}

// NotifyData is the data of notify/delivered and notify/given_up: the
// subscriber, the change's seq, and the last attempt's answer or error.
type NotifyData struct {
	Subscriber string `json:"subscriber"`
	Seq        int64  `json:"seq"`
	// Attempts counts the POSTs of this change, the delivering one
	// included.
	Attempts int32  `json:"attempts,omitempty"`
	Status   int    `json:"status,omitempty"`
	Error    string `json:"error,omitempty"`
}
