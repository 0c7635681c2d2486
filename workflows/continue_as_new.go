package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/sessionlog"
)

// shouldContinueAsNew says the run's history is long enough to hand over. A
// run that has recorded nothing yet never hands over: the next run would
// start no shorter, and a session could continue as new forever.
func (s *session) shouldContinueAsNew(ctx workflow.Context) bool {
	if s.integrity && s.seq == s.startSeq {
		return false
	}
	info := workflow.GetInfo(ctx)
	return info.GetContinueAsNewSuggested() || info.GetCurrentHistoryLength() >= s.in.ContinueAsNewAfterEvents
}

// mayContinueAsNew says nothing queued forbids handing over now: a prompt an
// update waits on cannot outlive its run, so it is served first, and queued
// messages nobody waits on are carried only while they fit the carry.
func (s *session) mayContinueAsNew() bool {
	size := 0
	for _, p := range s.inbox {
		if p.waited {
			return false
		}
		size += len(p.text)
	}
	return size <= carryInboxBytes
}

// drainForContinueAsNew waits until nothing accepted in this run could be
// lost on the way to the next: no update handler running, no write waiting
// for its turn, and no signal delivered but not yet taken; and, from
// changeNotifyHandover on, no batch of notifications out (for at most
// handoverGrace). It takes the signals itself, in this coroutine, and then
// decides without yielding, so no signal can slip in between. It reports false if a prompt someone waits on
// arrived meanwhile (that is served first) or the session was cancelled (the
// main loop then finishes it).
func (s *session) drainForContinueAsNew(ctx workflow.Context) bool {
	if !s.integrity {
		return s.drainLegacy(ctx)
	}
	var recallUntil time.Time
	if s.notifyHandover {
		s.handingOver = true
		recallUntil = s.recallBatches(ctx)
	}
	for {
		s.takeSignals(ctx)
		drained := func() bool {
			return workflow.AllHandlersFinished(ctx) && s.signalsInFlight == 0 && !s.batchesOut(ctx, recallUntil)
		}
		ready := func() bool { return !s.mayContinueAsNew() || s.signalsQueued() || drained() }
		var err error
		if s.batchesOut(ctx, recallUntil) {
			// The condition reads the clock: this timer ends the wait if
			// no other workflow task does.
			_, err = workflow.AwaitWithTimeout(ctx, recallUntil.Sub(workflow.Now(ctx)), ready)
		} else {
			err = workflow.Await(ctx, ready)
		}
		if err != nil || !s.mayContinueAsNew() {
			s.handingOver = false
			return false
		}
		if s.signalsQueued() || !drained() {
			continue
		}
		if *s.taskBytes(ctx) <= continueAsNewTaskBytes {
			return true
		}
		// This task carries large update results already: hand over in
		// the next one.
		if workflow.Sleep(ctx, time.Millisecond) != nil {
			s.handingOver = false
			return false
		}
	}
}

// continueAsNew hands the session to a fresh run with what carry bounds.
func (s *session) continueAsNew(ctx workflow.Context) (Summary, error) {
	s.fitConversation(ctx)
	in := s.in
	in.Carry = s.carry()
	workflow.GetLogger(ctx).Info("Continuing as new", "seq", s.seq, "run", s.runs,
		"snapshots", len(in.Carry.Snapshots), "queued", len(in.Carry.Inbox))
	return Summary{}, workflow.NewContinueAsNewError(ctx, contract.WorkflowType, in)
}

// conversationToCarry is what the model can still see. Writes are left out:
// the snapshots carry them, and a session that only ever receives writes
// would otherwise carry every one of them from run to run.
func (s *session) conversationToCarry() []sessionlog.Event {
	var out []sessionlog.Event
	for _, e := range s.log[s.windowStart():] {
		switch e.Type {
		case sessionlog.TodoWrite, sessionlog.TodoRejected, sessionlog.NotifyDelivered, sessionlog.NotifyGivenUp:
		default:
			out = append(out, e)
		}
	}
	return out
}
