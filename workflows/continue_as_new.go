package workflows

import (
	"go.temporal.io/sdk/workflow"
)

func (s *session) shouldContinueAsNew(ctx workflow.Context) bool {
	info := workflow.GetInfo(ctx)
	limit := s.in.ContinueAsNewAfterEvents
	if limit <= 0 {
		limit = defaultContinueAsNewAfterEvent
	}
	return info.GetContinueAsNewSuggested() || info.GetCurrentHistoryLength() >= limit
}

// drainForContinueAsNew waits until no handler is running and no signal is
// queued, so nothing accepted in this run is lost on the way to the next. It
// reports false if a prompt arrived meanwhile (that is served first) or the
// session was cancelled (the main loop then finishes it).
func (s *session) drainForContinueAsNew(ctx workflow.Context) bool {
	for {
		for _, name := range []string{SignalTodoWrite, SignalUserMessage} {
			if workflow.GetSignalChannel(ctx, name).Len() > 0 {
				// Let the receiving coroutines take them.
				if workflow.Await(ctx, func() bool { return workflow.GetSignalChannel(ctx, name).Len() == 0 }) != nil {
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
		if workflow.GetSignalChannel(ctx, SignalTodoWrite).Len() == 0 && workflow.GetSignalChannel(ctx, SignalUserMessage).Len() == 0 {
			return true
		}
	}
}

// continueAsNew hands the session to a fresh run: seq keeps counting, the
// list and the tail of its history survive, and so does the conversation the
// model can still see.
func (s *session) continueAsNew(ctx workflow.Context) (Summary, error) {
	history := s.history
	if len(history) > historyTail {
		history = history[len(history)-historyTail:]
	}
	in := s.in
	in.Carry = &Carry{
		Seq:              s.seq,
		Current:          s.current,
		History:          history,
		Log:              s.log[s.windowStart():],
		ConversationFrom: s.conversationFrom,
		ScriptTurn:       s.scriptTurn,
		Resuming:         s.resuming,
		TurnsUsed:        s.turnsUsed,
		Runs:             s.runs,
		Prompts:          s.prompts,
	}
	workflow.GetLogger(ctx).Info("Continuing as new", "seq", s.seq, "run", s.runs)
	return Summary{}, workflow.NewContinueAsNewError(ctx, WorkflowType, in)
}
