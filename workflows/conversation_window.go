package workflows

import (
	"cmp"
	"slices"

	"go.temporal.io/sdk/workflow"

	"github.com/durabletodos/agenttodos/sessionlog"
)

// fitConversation drops the oldest turns once the conversation outgrows its
// budget. It only ever moves the window's start to a user message or an
// assistant message, so a tool call is never separated from its result, and
// it keeps at least the newest turn.
func (s *session) fitConversation(ctx workflow.Context) {
	budget := s.in.ConversationBudgetBytes
	start := s.windowStart()
	size := 0
	for i := start; i < len(s.log); i++ {
		size += sessionlog.EstimateBytes(s.log[i])
	}
	dropped := false
	for size > budget {
		next := -1
		for i := start + 1; i < len(s.log); i++ {
			if t := s.log[i].Type; t == sessionlog.UserMessage || t == sessionlog.AssistantMessage {
				next = i
				break
			}
		}
		if next < 0 {
			break
		}
		for i := start; i < next; i++ {
			size -= sessionlog.EstimateBytes(s.log[i])
		}
		start, dropped = next, true
	}
	if !dropped {
		return
	}
	s.conversationFrom = s.log[start].Seq
	if len(s.current.Todos) > 0 {
		s.remind = sessionlog.ReminderTrimmed
	}
	workflow.GetLogger(ctx).Info("Trimmed conversation", "fromSeq", s.conversationFrom)
}

// windowStart is the index of the first log event the model may still see.
func (s *session) windowStart() int {
	i, _ := slices.BinarySearchFunc(s.log, s.conversationFrom, func(e sessionlog.Event, seq int64) int {
		return cmp.Compare(e.Seq, seq)
	})
	return i
}

// remindOfPlan puts the current list, verbatim, right before the model's next
// request whenever the model could not otherwise know it: its own last write
// was trimmed away or left behind in an earlier run, or a person or program
// changed the plan from outside.
func (s *session) remindOfPlan(ctx workflow.Context) {
	if s.remind == sessionlog.ReminderChangedOutside && s.steer && s.toldSeq == s.current.Seq {
		// A rejected todo_write's result already shows the model this plan
		// and who changed it.
		s.remind, s.outside = "", nil
	}
	if s.remind == "" {
		return
	}
	s.appendEvent(ctx, sessionlog.TodoReminder, sessionlog.TodoReminderData{Reason: s.remind, Todos: s.current.Todos, Changes: s.outside})
	s.remind, s.outside = "", nil
}
