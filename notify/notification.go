package notify

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/durabletodos/agenttodos/todo"
)

// Notification is the JSON body of one webhook POST: one accepted change of
// one session. Every attempt sends the same bytes.
type Notification struct {
	// ID is the idempotency key, "<workflow id>:<seq>", also sent as the
	// Idempotency-Key header: a receiver that saw it already has it.
	ID        string `json:"id"`
	SessionID string `json:"sessionId"`
	// Seq is the change's seq; PreviousSeq the plan's before it (the
	// todo_diff query gives the same change from PreviousSeq to Seq).
	Seq         int64 `json:"seq"`
	PreviousSeq int64 `json:"previousSeq"`
	// Events is every kind this change is, not only those the subscriber
	// filters on.
	Events []Kind       `json:"events"`
	Change *todo.Change `json:"change,omitempty"`
	// ChangeTruncated says the change record was over MaxChangeBytes and
	// left out: ask todo_diff for it.
	ChangeTruncated bool        `json:"changeTruncated,omitempty"`
	Counts          todo.Counts `json:"counts"`
	// Source is who made the change: the model, or a person or program
	// (their declared identity and note) through an update, edit or signal.
	Source todo.Source `json:"source"`
	At     time.Time   `json:"at"`
}

// MaxChangeBytes bounds the change record a notification carries, so that a
// session's pending notifications stay small enough to carry across
// continue-as-new: a rewrite of a long plan is announced without its record.
const MaxChangeBytes = 8 << 10

// Key is the idempotency key of a session's change.
func Key(sessionID string, seq int64) string {
	return sessionID + ":" + strconv.FormatInt(seq, 10)
}

// New builds the notification of one change.
func New(sessionID string, seq, previousSeq int64, kinds []Kind, change todo.Change, counts todo.Counts, src todo.Source, at time.Time) Notification {
	n := Notification{
		ID: Key(sessionID, seq), SessionID: sessionID, Seq: seq, PreviousSeq: previousSeq,
		Events: kinds, Counts: counts, Source: src, At: at,
	}
	if b, err := json.Marshal(change); err == nil && len(b) <= MaxChangeBytes {
		n.Change = &change
	} else {
		n.ChangeTruncated = true
	}
	return n
}

// Size approximates the notification's JSON, for the outbox budget.
func (n Notification) Size() int {
	size := 2*len(n.ID) + len(n.Source.ID) + len(n.Source.By) + len(n.Source.Note) + 256
	for _, k := range n.Events {
		size += len(k) + 3
	}
	if n.Change != nil {
		b, _ := json.Marshal(n.Change)
		size += len(b)
	}
	return size
}
