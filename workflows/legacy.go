package workflows

import (
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"
)

// What runs started before changeSessionIntegrity do, kept so their histories
// replay exactly as they were written, flaws included.

// receiveSignalsLegacy blocks in a Selector; see receiveSignals for why that
// could lose a signal delivered in the task that continued as new.
func (s *session) receiveSignalsLegacy(ctx workflow.Context) {
	sel := workflow.NewSelector(ctx)
	sel.AddReceive(s.todoWriteSignals, func(ch workflow.ReceiveChannel, _ bool) {
		var args converter.RawValue
		ch.Receive(ctx, &args)
		s.acceptTodoWriteSignal(ctx, args)
	})
	sel.AddReceive(s.userMessageSignals, func(ch workflow.ReceiveChannel, _ bool) {
		var text string
		ch.Receive(ctx, &text)
		s.queueUserMessage(ctx, text)
	})
	for {
		sel.Select(ctx)
	}
}

// drainLegacy waited for the channels to look empty, which a signal handed to
// the blocked Selector defeats.
func (s *session) drainLegacy(ctx workflow.Context) bool {
	for {
		for _, ch := range []workflow.ReceiveChannel{s.todoWriteSignals, s.userMessageSignals} {
			if ch.Len() > 0 {
				if workflow.Await(ctx, func() bool { return ch.Len() == 0 }) != nil {
					return false
				}
			}
		}
		err := workflow.Await(ctx, func() bool {
			return len(s.inbox) > 0 || (workflow.AllHandlersFinished(ctx) && s.signalsInFlight == 0)
		})
		if err != nil || len(s.inbox) > 0 {
			return false
		}
		if s.todoWriteSignals.Len() == 0 && s.userMessageSignals.Len() == 0 {
			return true
		}
	}
}
