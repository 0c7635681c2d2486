package main

import (
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"
)

// The benchmark-only baseline: a workflow whose update and query do nothing,
// on the same task queue and worker as AgentSession. Everything Temporal
// itself costs (the update's round trip, its workflow task, its accepted and
// completed events) it pays too; what it does not pay is our work.
const (
	noopWorkflowType = "BenchNoop"
	noopUpdate       = "noop"
	noopQuery        = "noop"
)

// noopResult stands in for TodoWriteResult: a small, fixed answer.
type noopResult struct {
	N int64 `json:"n"`
}

// benchNoop registers a no-op update (taking the same raw JSON argument as
// todo_write, with a trivial validator of the same shape) and a no-op query,
// and continues as new when the server suggests it, as AgentSession does, so
// long runs do not hit the per-run update limit.
func benchNoop(ctx workflow.Context) error {
	var n int64
	if err := workflow.SetQueryHandler(ctx, noopQuery, func() (noopResult, error) {
		return noopResult{}, nil
	}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, noopUpdate,
		func(_ workflow.Context, _ converter.RawValue) (noopResult, error) {
			n++
			return noopResult{N: n}, nil
		},
		workflow.UpdateHandlerOptions{
			Validator: func(_ workflow.Context, _ converter.RawValue) error { return nil },
		}); err != nil {
		return err
	}
	if err := workflow.Await(ctx, func() bool {
		return workflow.GetInfo(ctx).GetContinueAsNewSuggested() && workflow.AllHandlersFinished(ctx)
	}); err != nil {
		return err
	}
	return workflow.NewContinueAsNewError(ctx, noopWorkflowType)
}
