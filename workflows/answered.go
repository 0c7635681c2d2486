package workflows

import (
	"errors"
	"strconv"

	"go.temporal.io/sdk/temporal"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/todo"
)

// AnsweredUpdate is one todo_write or prompt update the session has answered,
// remembered so that a client retrying it with the same update ID after a
// continue-as-new gets the first answer instead of a second application:
// Temporal deduplicates update IDs within one run only.
type AnsweredUpdate struct {
	Name string `json:"name"`
	ID   string `json:"id"`
	// Seq is where a todo_write was recorded, or where a prompt's answer was.
	Seq int64 `json:"seq"`
	// Answer, Error and ErrorType are what a prompt returned.
	Answer    string `json:"answer,omitempty"`
	Error     string `json:"error,omitempty"`
	ErrorType string `json:"errorType,omitempty"`
}

// ErrTypeAnswerNotKept answers a retried prompt whose answer was too large
// to remember across continue-as-new; the answer is in the session log.
const ErrTypeAnswerNotKept = "AnswerNotKept"

// maxKeptAnswerBytes is the longest prompt answer remembered for retries.
const maxKeptAnswerBytes = 16 << 10

func (a AnsweredUpdate) size() int {
	return 64 + len(a.Name) + todo.EncodedStringSize(a.ID) + todo.EncodedStringSize(a.Answer) + todo.EncodedStringSize(a.Error)
}

// answeredUpdates is every update answered in this run plus the newest ones
// carried from earlier runs, in the order they were answered.
type answeredUpdates struct {
	list  []AnsweredUpdate
	index map[string]int
}

func answeredKey(name, id string) string { return name + "\x00" + id }

func (u *answeredUpdates) remember(a AnsweredUpdate) {
	if u.index == nil {
		u.index = map[string]int{}
	}
	u.index[answeredKey(a.Name, a.ID)] = len(u.list)
	u.list = append(u.list, a)
}

func (u *answeredUpdates) lookup(name, id string) (AnsweredUpdate, bool) {
	i, ok := u.index[answeredKey(name, id)]
	if !ok {
		return AnsweredUpdate{}, false
	}
	return u.list[i], true
}

func (u *answeredUpdates) restore(list []AnsweredUpdate) {
	for _, a := range list {
		u.remember(a)
	}
}

// newest is the tail of the list that fits in budget bytes, at most
// historyTail entries, oldest first.
func (u *answeredUpdates) newest(budget int) []AnsweredUpdate {
	start, size := len(u.list), 0
	for start > 0 && len(u.list)-start < historyTail {
		n := u.list[start-1].size()
		if size+n > budget {
			break
		}
		size += n
		start--
	}
	return u.list[start:]
}

// promptAnswer records what a prompt update returned.
func promptAnswer(id string, seq int64, answer string, err error) AnsweredUpdate {
	a := AnsweredUpdate{Name: contract.UpdatePrompt, ID: id, Seq: seq, Answer: answer}
	if err != nil {
		a.Answer, a.Error = "", todo.ErrorMessage(err)
		if appErr, ok := errors.AsType[*temporal.ApplicationError](err); ok {
			a.ErrorType = appErr.Type()
		}
	}
	if len(a.Answer) > maxKeptAnswerBytes {
		a.Answer, a.Error, a.ErrorType = "", "this prompt was answered at seq "+strconv.FormatInt(seq, 10)+
			"; the answer is too large to keep for retries: read it with the session_log query", ErrTypeAnswerNotKept
	}
	return a
}

// result is what a retried prompt returns.
func (a AnsweredUpdate) result() (string, error) {
	if a.Error != "" {
		return "", temporal.NewNonRetryableApplicationError(a.Error, a.ErrorType, nil)
	}
	return a.Answer, nil
}
