package sessiontest

import (
	"encoding/json"

	"github.com/google/uuid"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/notify"
	"github.com/durabletodos/agenttodos/workflows"
)

// Subscribe sends the subscribe update and returns the subscribers.
func (s Session) Subscribe(sub notify.Subscriber) ([]workflows.SubscriberStatus, error) {
	raw, _ := json.Marshal(sub)
	var out []workflows.SubscriberStatus
	err := Update(s.ctx(), s.C, s.ID, uuid.NewString(), contract.UpdateSubscribe, raw, &out)
	return out, err
}

// Unsubscribe sends the unsubscribe update and returns the subscribers left.
func (s Session) Unsubscribe(id string) ([]workflows.SubscriberStatus, error) {
	raw, _ := json.Marshal(notify.Unsubscribe{ID: id})
	var out []workflows.SubscriberStatus
	err := Update(s.ctx(), s.C, s.ID, uuid.NewString(), contract.UpdateUnsubscribe, raw, &out)
	return out, err
}

// Subscribers is the subscribers query.
func (s Session) Subscribers() []workflows.SubscriberStatus {
	s.T.Helper()
	var out []workflows.SubscriberStatus
	s.Query(contract.QuerySubscribers, &out)
	return out
}
