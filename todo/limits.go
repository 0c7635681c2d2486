package todo

import "github.com/durabletodos/agenttodos/contract"

// Limits bound what one todo_write may carry. A zero field takes its default.
type Limits struct {
	// MaxItems is the most items one list may hold (rule 3).
	MaxItems int
	// MaxContentBytes is the longest one item's content may be (rule 7).
	MaxContentBytes int
	// MaxTotalBytes is the most content bytes one list may hold (rule 10).
	MaxTotalBytes int
}

// WithDefaults fills every zero field with its default.
func (l Limits) WithDefaults() Limits {
	if l.MaxItems <= 0 {
		l.MaxItems = contract.DefaultMaxItems
	}
	if l.MaxContentBytes <= 0 {
		l.MaxContentBytes = contract.DefaultMaxContentBytes
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = contract.DefaultMaxTotalBytes
	}
	return l
}
