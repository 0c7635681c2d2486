package notify

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Subscriber is one webhook of a session. Its secret is never in the
// session: SecretName names it in the worker's webhook secrets file, so
// neither history, queries nor the UI ever hold it.
type Subscriber struct {
	// ID tells a session's subscribers apart; subscribing again with the
	// same ID replaces the subscriber.
	ID string `json:"id"`
	// URL receives a POST for each matching change.
	URL string `json:"url"`
	// Events is the filter: a change is sent when it is any of these kinds.
	// Empty means [changed].
	Events []Kind `json:"events,omitempty"`
	// SecretName names the HMAC-SHA256 key in the worker's secrets file.
	SecretName string `json:"secretName"`
	// GiveUpAfter bounds how long one notification is retried, as a Go
	// duration ("90s", "1h"); empty means DefaultGiveUpAfter.
	GiveUpAfter string `json:"giveUpAfter,omitempty"`
}

// Bounds of a subscriber; README's contract lists them with their messages.
const (
	MaxSubscribers     = 16
	MaxIDBytes         = 64
	MaxURLBytes        = 2048
	DefaultGiveUpAfter = time.Hour
	MinGiveUpAfter     = time.Second
	MaxGiveUpAfter     = 72 * time.Hour
)

// ErrTypeInvalidSubscriber is the Temporal error type of a refused
// subscribe or unsubscribe.
const ErrTypeInvalidSubscriber = "InvalidSubscriber"

// Check returns the first rule the subscriber breaks, with its contract
// message. Whether its secret exists is the worker's to say (see Secrets).
func (s Subscriber) Check() error {
	if !isName(s.ID) {
		return fmt.Errorf("subscriber id must be 1 to %d letters, digits, '.', '_' or '-'", MaxIDBytes)
	}
	if !isWebhookURL(s.URL) {
		return fmt.Errorf("subscriber %s: url must be an absolute http or https URL without credentials, of at most %d bytes", s.ID, MaxURLBytes)
	}
	for _, k := range s.Events {
		if !slices.Contains(AllKinds, k) {
			return fmt.Errorf("subscriber %s: unknown event %q: use %s", s.ID, k, kindList())
		}
	}
	if !isName(s.SecretName) {
		return fmt.Errorf("subscriber %s: secretName must name a secret of the worker's webhook secrets file (1 to %d letters, digits, '.', '_' or '-')", s.ID, MaxIDBytes)
	}
	if _, err := s.giveUpAfter(); err != nil {
		return err
	}
	return nil
}

// Wants says whether a change of these kinds is sent to the subscriber.
func (s Subscriber) Wants(kinds []Kind) bool {
	filter := s.Events
	if len(filter) == 0 {
		filter = []Kind{Changed}
	}
	for _, k := range kinds {
		if slices.Contains(filter, k) {
			return true
		}
	}
	return false
}

// Deadline is how long one notification is retried before it is given up.
func (s Subscriber) Deadline() time.Duration {
	d, err := s.giveUpAfter()
	if err != nil {
		return DefaultGiveUpAfter
	}
	return d
}

func (s Subscriber) giveUpAfter() (time.Duration, error) {
	if s.GiveUpAfter == "" {
		return DefaultGiveUpAfter, nil
	}
	d, err := time.ParseDuration(s.GiveUpAfter)
	if err != nil || d < MinGiveUpAfter || d > MaxGiveUpAfter {
		return 0, fmt.Errorf("subscriber %s: giveUpAfter must be a duration between %s and %s (got %q)", s.ID, MinGiveUpAfter, MaxGiveUpAfter, s.GiveUpAfter)
	}
	return d, nil
}

// Size approximates the subscriber's JSON, for the continue-as-new budget.
func (s Subscriber) Size() int {
	n := len(s.ID) + len(s.URL) + len(s.SecretName) + len(s.GiveUpAfter) + 96
	for _, k := range s.Events {
		n += len(k) + 3
	}
	return n
}

// CheckAll checks a session's whole list: each subscriber, distinct IDs and
// at most MaxSubscribers.
func CheckAll(subs []Subscriber) error {
	if len(subs) > MaxSubscribers {
		return ErrTooManySubscribers
	}
	for i, s := range subs {
		if err := s.Check(); err != nil {
			return err
		}
		for _, o := range subs[:i] {
			if o.ID == s.ID {
				return fmt.Errorf("subscriber %s is listed twice", s.ID)
			}
		}
	}
	return nil
}

// ErrTooManySubscribers refuses a subscriber past MaxSubscribers.
var ErrTooManySubscribers = fmt.Errorf("a session has at most %d subscribers", MaxSubscribers)

// Unsubscribe is the unsubscribe update's argument.
type Unsubscribe struct {
	ID string `json:"id"`
}

// NoSuchSubscriber is unsubscribe's error for an ID the session does not have.
func NoSuchSubscriber(id string) error {
	return fmt.Errorf("no subscriber %q", id)
}

func isName(s string) bool {
	if s == "" || len(s) > MaxIDBytes {
		return false
	}
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
		if !ok {
			return false
		}
	}
	return true
}

func isWebhookURL(raw string) bool {
	if len(raw) > MaxURLBytes {
		return false
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil {
		return false
	}
	return u.Scheme == "http" || u.Scheme == "https"
}

func kindList() string {
	names := make([]string, len(AllKinds))
	for i, k := range AllKinds {
		names[i] = string(k)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
