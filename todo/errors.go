package todo

import (
	"errors"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"go.temporal.io/sdk/temporal"
)

// Error types carried by the temporal.ApplicationError of a rejected write, so
// callers can tell a bad list from a bad caller with errors.As and Type().
const (
	ErrTypeInvalidTodos    = "InvalidTodos"
	ErrTypeNoOwningSession = "NoOwningSession"
)

// The stable messages of the contract (DESIGN.md, "Validation").
const (
	msgNotArray        = "invalid todos: `todos` must be an array"
	msgContentEmpty    = "invalid todo: `content` must be a non-empty string"
	msgStatusInvalid   = "invalid todo: `status` must be one of pending, in_progress, completed"
	MsgNoOwningSession = "todo_write requires an owning agent session"
)

func invalid(msg string) error {
	return temporal.NewNonRetryableApplicationError(msg, ErrTypeInvalidTodos, nil)
}

// NoOwningSessionError is rule 11: the caller is not an AgentSession workflow.
func NoOwningSessionError() error {
	return temporal.NewNonRetryableApplicationError(MsgNoOwningSession, ErrTypeNoOwningSession, nil)
}

func errNotArray() error { return invalid(msgNotArray) }

func errUnknownTopKey(key string) error {
	return invalid("invalid todos: unknown key " + quote(key))
}

func errTooManyItems(limit, got int) error {
	return invalid("invalid todos: at most " + strconv.Itoa(limit) + " items (got " + strconv.Itoa(got) + ")")
}

func errItemNotObject(i int) error {
	return invalid("invalid todo: `todos[" + strconv.Itoa(i) + "]` must be an object")
}

func errUnknownItemKey(key string) error {
	return invalid("invalid todo: unknown key " + quote(key))
}

func errContentEmpty() error { return invalid(msgContentEmpty) }

func errContentTooLong(limit int) error {
	return invalid("invalid todo: `content` exceeds " + strconv.Itoa(limit) + " bytes")
}

func errStatusInvalid() error { return invalid(msgStatusInvalid) }

func errDuplicate(content string) error {
	return invalid("invalid todos: duplicate content " + quote(content))
}

func errListTooLarge(limit int) error {
	return invalid("invalid todos: list exceeds " + strconv.Itoa(limit) + " bytes")
}

// ErrorMessage returns the contract message of a rejected write: the
// ApplicationError's own message, without the wrapping an activity or update
// failure adds around it.
func ErrorMessage(err error) string {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		return appErr.Message()
	}
	return err.Error()
}

// quote renders a key or content the way a JSON runtime would (JSON.stringify),
// so messages read the same to the model whichever runtime produced them.
// Its tags are escaped (EscapeTags): the quoted text goes back to the model,
// and a "</system-reminder>" in it must read as text, not as a frame.
func quote(s string) string {
	b, err := jsontext.AppendQuote(make([]byte, 0, len(s)+2), s)
	if err != nil {
		return EscapeTags(strconv.Quote(s))
	}
	return EscapeTags(string(b))
}
