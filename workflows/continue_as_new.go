package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
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
	s.fitConversation(ctx)
	in := s.in
	in.Carry = &Carry{
		Seq:              s.seq,
		Current:          s.current,
		History:          s.historyToCarry(),
		Log:              s.conversationToCarry(),
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

// The carry-over is the next run's input, and a payload over Temporal's blob
// limit (2 MiB by default) would fail the workflow task for good; these keep
// it well below whatever the session wrote.
const (
	historyTailBytes = 512 << 10
	// itemOverheadBytes approximates an item's JSON beyond its content.
	itemOverheadBytes = 32
)

// historyToCarry is the newest part of the snapshot history: at most
// historyTail snapshots and about historyTailBytes, always the current one.
func (s *session) historyToCarry() []todo.Snapshot {
	start, size := len(s.history), 0
	for start > 0 && len(s.history)-start < historyTail {
		snap := &s.history[start-1]
		for _, it := range snap.Todos {
			size += len(it.Content) + itemOverheadBytes
		}
		if size > historyTailBytes && start < len(s.history) {
			break
		}
		start--
	}
	return s.history[start:]
}

// conversationToCarry is what the model can still see. Writes are left out:
// the snapshots carry them, and a session that only ever receives writes
// would otherwise carry every one of them from run to run.
func (s *session) conversationToCarry() []sessionlog.Event {
	var out []sessionlog.Event
	for _, e := range s.log[s.windowStart():] {
		if e.Type != sessionlog.TodoWrite && e.Type != sessionlog.TodoRejected {
			out = append(out, e)
		}
	}
	return out
}
