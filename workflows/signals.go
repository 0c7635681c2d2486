package workflows

import (
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"
)

// receiveSignals takes both signals as they arrive. It waits for a channel to
// hold something and then takes it with ReceiveAsync, instead of blocking in
// Receive or a Selector: a blocked receive is handed a signal before its
// coroutine runs, which leaves the channel empty while the signal is in
// nobody's hands, and a continue-as-new decided in that instant lost it.
// This way a delivered signal stays in its channel until takeSignals, which
// the continue-as-new drain calls too, takes it.
func (s *session) receiveSignals(ctx workflow.Context) {
	// Signals delivered while the session is being cancelled are still
	// handled: finish waits for them.
	ctx, _ = workflow.NewDisconnectedContext(ctx)
	for {
		_ = workflow.Await(ctx, s.signalsQueued)
		s.takeSignals(ctx)
	}
}

func (s *session) signalsQueued() bool {
	return s.todoWriteSignals.Len() > 0 || s.userMessageSignals.Len() > 0
}

// takeSignals handles every signal delivered so far, in the order of each
// channel.
func (s *session) takeSignals(ctx workflow.Context) {
	var args converter.RawValue
	for s.todoWriteSignals.ReceiveAsync(&args) {
		s.acceptTodoWriteSignal(ctx, args)
	}
	var text string
	for s.userMessageSignals.ReceiveAsync(&text) {
		s.queueUserMessage(ctx, text)
	}
}
