package notify

import "github.com/durabletodos/agenttodos/todo"

// Kind is one thing an accepted change can be; a subscriber's filter lists
// the kinds it wants.
type Kind string

// The kinds of change, in the order a notification lists them.
const (
	// Changed is any accepted write that changed the plan. A write of the
	// very list the plan already holds is accepted but changes nothing.
	Changed Kind = "changed"
	// ItemStarted: an item became in_progress (or was added in progress).
	ItemStarted Kind = "item_started"
	// ItemCompleted: an item became completed (or was added completed).
	ItemCompleted Kind = "item_completed"
	// PlanFinished: every item of a non-empty plan is completed, and was not
	// before this change.
	PlanFinished Kind = "plan_finished"
	// ChangedOutside: a person or program changed the plan (an update, an
	// edit or a signal), not the model.
	ChangedOutside Kind = "changed_outside"
)

// AllKinds lists every kind.
var AllKinds = []Kind{Changed, ItemStarted, ItemCompleted, PlanFinished, ChangedOutside}

// KindsOf says what a change from before to after is; none when the plan
// did not change.
func KindsOf(before, after []todo.Item, change todo.Change, src todo.Source) []Kind {
	if change.Empty() {
		return nil
	}
	kinds := []Kind{Changed}
	started, completed := false, false
	for _, s := range change.Status {
		started = started || s.To == todo.InProgress
		completed = completed || s.To == todo.Completed
	}
	for _, a := range change.Added {
		started = started || a.Status == todo.InProgress
		completed = completed || a.Status == todo.Completed
	}
	if started {
		kinds = append(kinds, ItemStarted)
	}
	if completed {
		kinds = append(kinds, ItemCompleted)
	}
	if finished(after) && !finished(before) {
		kinds = append(kinds, PlanFinished)
	}
	if src.Kind != todo.SourceModel {
		kinds = append(kinds, ChangedOutside)
	}
	return kinds
}

func finished(items []todo.Item) bool {
	if len(items) == 0 {
		return false
	}
	for _, it := range items {
		if it.Status != todo.Completed {
			return false
		}
	}
	return true
}
