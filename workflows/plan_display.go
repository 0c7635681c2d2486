package workflows

import (
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/todo"
)

// showPlan puts the plan where people look: the Temporal UI's current
// details (Markdown) and the search attributes `temporal workflow list` can
// filter on.
func (s *session) showPlan(ctx workflow.Context) {
	c := s.current.Counts
	workflow.SetCurrentDetails(ctx, todo.Markdown(s.current.Todos, c, s.current.Seq))
	if !s.useSearchAttributes || (s.lastCounts != nil && *s.lastCounts == c) {
		// Unchanged counts need no upsert: each one is a history event.
		return
	}
	// Only the counts that changed: the server rewrites the visibility row
	// either way, but the event (kept in history for good) is smaller. The
	// SDK matches an upsert to its event by type alone, so replaying an
	// older history, which upserted all three, is unaffected.
	last := s.lastCountsOr(-1)
	var updates []temporal.SearchAttributeUpdate
	for _, f := range []struct {
		key       temporal.SearchAttributeKeyInt64
		now, last int
	}{
		{contract.SearchAttributePending, c.Pending, last.Pending},
		{contract.SearchAttributeInProgress, c.InProgress, last.InProgress},
		{contract.SearchAttributeCompleted, c.Completed, last.Completed},
	} {
		if f.now != f.last {
			updates = append(updates, f.key.ValueSet(int64(f.now)))
		}
	}
	err := workflow.UpsertTypedSearchAttributes(ctx, updates...)
	if err != nil {
		workflow.GetLogger(ctx).Warn("Could not upsert todo search attributes", "error", err)
		return
	}
	s.lastCounts = &c
}

// lastCountsOr is the counts last upserted, or all fields set to none (a
// value no count takes) before the first upsert of this run.
func (s *session) lastCountsOr(none int) todo.Counts {
	if s.lastCounts == nil {
		return todo.Counts{Pending: none, InProgress: none, Completed: none}
	}
	return *s.lastCounts
}
