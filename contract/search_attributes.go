package contract

import "go.temporal.io/sdk/temporal"

// Search attributes upserted when a write changes the counts, so
// `temporal workflow list --query 'TodoInProgress > 0'` finds busy agents.
var (
	SearchAttributePending    = temporal.NewSearchAttributeKeyInt64("TodoPending")
	SearchAttributeInProgress = temporal.NewSearchAttributeKeyInt64("TodoInProgress")
	SearchAttributeCompleted  = temporal.NewSearchAttributeKeyInt64("TodoCompleted")
)

// SearchAttributeNames lists them, for the worker's start-up check and for
// registering them on a cluster.
var SearchAttributeNames = []string{
	SearchAttributePending.GetName(),
	SearchAttributeInProgress.GetName(),
	SearchAttributeCompleted.GetName(),
}
