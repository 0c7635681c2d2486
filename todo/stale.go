package todo

import (
	"bytes"
	"encoding/json"
	"strconv"

	"go.temporal.io/sdk/temporal"
)

// StaleWriteError rejects a todo_write from the model that was built on the
// plan at seq seen, when people or programs (changes) have changed it since:
// applying it would silently undo their change.
func StaleWriteError(changes []Source, seen, now int64) error {
	return temporal.NewNonRetryableApplicationError(StaleWriteMessage(changes, seen, now), ErrTypeStaleWrite, nil)
}

// StaleWriteMessage is the first line of the model's tool result.
func StaleWriteMessage(changes []Source, seen, now int64) string {
	return "the todo list was changed by " + DescribeWriters(changes) +
		" since the version you last saw (seq " + strconv.FormatInt(seen, 10) + ", now seq " + strconv.FormatInt(now, 10) +
		"); this todo_write was not applied"
}

// staleWriteAdvice follows the message: what the model should do next.
const staleWriteAdvice = ". The current list is below, verbatim: apply your change on top of it and send the whole list again with todo_write.\n"

// StaleWriteResult is the exact tool result of a rejected stale write: the
// message, what to do, and the current list as {"todos":[...]}, the very
// arguments todo_write takes.
func StaleWriteResult(err error, current []Item) string {
	if current == nil {
		current = []Item{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(struct {
		Todos []Item `json:"todos"`
	}{current})
	// Writers' names and the list come from outside: no tag in them may
	// reach the model as one.
	return EscapeTags(ErrorResult(err) + staleWriteAdvice + string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))))
}
