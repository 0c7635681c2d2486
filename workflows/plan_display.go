package workflows

import (
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
	err := workflow.UpsertTypedSearchAttributes(ctx,
		contract.SearchAttributePending.ValueSet(int64(c.Pending)),
		contract.SearchAttributeInProgress.ValueSet(int64(c.InProgress)),
		contract.SearchAttributeCompleted.ValueSet(int64(c.Completed)),
	)
	if err != nil {
		workflow.GetLogger(ctx).Warn("Could not upsert todo search attributes", "error", err)
		return
	}
	s.lastCounts = &c
}
