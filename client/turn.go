package main

import (
	"encoding/json"

	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
)

// turnWatcher follows a session log to tell when the agent has finished
// with the latest user message: an assistant message with no tool calls
// (its answer) or turn/failed after the last user/message. It also keeps the
// latest plan the log shows.
type turnWatcher struct {
	after int64 // the highest seq seen, for the next page

	plan     todo.State
	planSeen bool

	prompted bool // a user/message has been seen
	answered bool
	answer   string
	failed   bool
	failure  string
}

func (w *turnWatcher) add(events []sessionlog.Event) {
	for _, ev := range events {
		if ev.Seq <= w.after {
			continue
		}
		w.after = ev.Seq
		switch ev.Type {
		case sessionlog.UserMessage:
			// A newer message (someone used `say`) restarts the wait: the
			// answer wanted is the one after the last message.
			w.prompted, w.answered, w.failed = true, false, false
			w.answer, w.failure = "", ""
		case sessionlog.AssistantMessage:
			var d sessionlog.AssistantData
			if json.Unmarshal(ev.Data, &d) == nil && len(d.ToolCalls) == 0 && w.prompted {
				w.answered, w.answer = true, d.Content
			}
		case sessionlog.TurnFailed:
			var d sessionlog.MessageData
			if w.prompted {
				_ = json.Unmarshal(ev.Data, &d)
				w.failed, w.failure = true, d.Text
			}
		case sessionlog.TodoWrite:
			var d sessionlog.TodoWriteData
			if json.Unmarshal(ev.Data, &d) == nil {
				w.plan = todo.State{Todos: d.Todos, Counts: todo.CountOf(d.Todos), Seq: ev.Seq, UpdatedAt: ev.At}
				w.planSeen = true
			}
		}
	}
}

func (w *turnWatcher) finished() bool { return w.prompted && (w.answered || w.failed) }
