package workflows

import "go.temporal.io/sdk/workflow"

// Every change to what AgentSession does is guarded by a change ID, so that a
// session already running when a new worker is deployed replays its history
// exactly as it was written. Add a change ID (or a version of this one) for
// each new change of commands; keep the code of older versions until no
// running session needs it, and keep their recorded histories in
// tests/testdata/histories (never overwritten) so CI replays them.
const (
	// changeSessionIntegrity covers: signals drained by the deciding
	// coroutine before continue-as-new; continue-as-new in the middle of a
	// prompt that drains and carries queued messages; the first prompt not
	// waited on; update IDs remembered across continue-as-new; large update
	// results spread over workflow tasks; validated session input; and
	// continue-as-new only after a run has made progress.
	changeSessionIntegrity = "session-integrity"

	// changeSteer covers: the todo_edit update; writers named from the
	// contract.HeaderWriter header; and the model's todo_write checked
	// against the plan it last saw, rejected with the current list when a
	// person or program changed the plan since.
	changeSteer = "steer-edits"

	// changeNotify covers: webhook subscribers (from the session input and
	// the subscribe and unsubscribe updates), the DeliverNotification
	// activities that tell them of accepted changes, and the subscribers
	// and their pending notifications carried across continue-as-new.
	changeNotify = "notify"

	// changeNotifyBatch covers: a subscriber's notifications sent by the
	// DeliverNotifications activity in batches, a batch starting no sooner
	// than batchWindow after the one before, instead of one
	// DeliverNotification activity per change.
	changeNotifyBatch = "notify-batch"

	// changeNotifyHandover covers: a run that continues as new lets the
	// batch it has in flight answer first (for at most handoverGrace) and
	// starts no new one meanwhile, so the next run carries only what is
	// still to send instead of sending that batch again.
	changeNotifyHandover = "notify-handover"
)

// integrityVersion is decided once per run, at its start.
func integrityVersion(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeSessionIntegrity, workflow.DefaultVersion, 1) >= 1
}

// steerVersion is decided once per run, at its start, after integrityVersion.
func steerVersion(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeSteer, workflow.DefaultVersion, 1) >= 1
}

// notifyVersion is decided once per run, at its start, after steerVersion.
func notifyVersion(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeNotify, workflow.DefaultVersion, 1) >= 1
}

// notifyBatchVersion is decided once per run, at its start, after
// notifyVersion.
func notifyBatchVersion(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeNotifyBatch, workflow.DefaultVersion, 1) >= 1
}

// notifyHandoverVersion is decided once per run, at its start, after
// notifyBatchVersion.
func notifyHandoverVersion(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeNotifyHandover, workflow.DefaultVersion, 1) >= 1
}
