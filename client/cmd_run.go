package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
)

func (a *app) runCommand() *cobra.Command {
	var sf sessionFlags
	var watch bool
	var every time.Duration
	cmd := &cobra.Command{
		Use:   "run PROMPT...",
		Short: "Start a session on a prompt, watch its plan, print the answer",
		Args:  positional(true, "PROMPT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := a.messageText(args)
			if err != nil {
				return err
			}
			if every <= 0 {
				return usageErrorf("--interval must be positive")
			}
			in, err := sf.input(text)
			if err != nil {
				return err
			}
			id, err := a.startSession(cmd.Context(), &sf, in)
			if err != nil {
				return err
			}
			// stderr, so stdout holds only the plan and the answer.
			fmt.Fprintf(a.stderr, "session %s\n", id)
			return a.watchTurn(cmd.Context(), id, watch && a.out.text(), every)
		},
	}
	sf.register(cmd.Flags())
	cmd.Flags().BoolVarP(&watch, "watch", "w", true, "show the plan live while the agent works (--watch=false: just wait)")
	cmd.Flags().DurationVar(&every, "interval", defaultInterval, "how often to look at the session")
	return cmd
}

// watchTurn follows a session's log until the agent has answered the last
// message, showing the plan as it changes, then prints the outcome.
func (a *app) watchTurn(ctx context.Context, id string, watch bool, every time.Duration) error {
	view := &liveView{w: a.out.w, tty: a.term.tty, height: a.term.height}
	var tw turnWatcher
	shownSeq := int64(-1)
	hinted := false
	end, closedErr, err := a.poll(ctx, id, every, func() (bool, error) {
		events, err := a.queryLog(ctx, id, sessionlog.PageRequest{AfterSeq: tw.after})
		if err != nil {
			// The worker picks a new session up within moments; until it
			// has, a query has nobody to answer it. Say so once, and wait.
			if !hinted && isTimeout(err) {
				hinted = true
				fmt.Fprintf(a.stderr, "%s; still waiting\n", err)
			}
			return false, nil
		}
		tw.add(events)
		if watch && tw.planSeen && tw.plan.Seq != shownSeq && !tw.finished() {
			shownSeq = tw.plan.Seq
			view.show(renderPlan(tw.plan, a.term))
		}
		return tw.finished(), nil
	})
	switch {
	case err != nil:
		return err
	case end == pollInterrupted:
		view.erase()
		fmt.Fprintf(a.stderr, "stopped watching; session %s carries on (client todos %s --watch)\n", id, id)
		return nil
	case end == pollClosed:
		return &exitError{code: 1, msg: fmt.Sprintf("client: session %s ended before answering: it %s", id, closedText(closedErr))}
	}

	// The query is the authority on the plan; the log's copy is the
	// fallback when it cannot answer.
	res := receipt{Session: id, Answer: tw.answer, Failure: tw.failure, Plan: &tw.plan}
	if _, st, err := a.queryState(ctx, id); err == nil {
		res.Plan = &st
	}
	view.erase()
	if view.shown && !view.tty {
		fmt.Fprintln(a.out.w)
	}
	text := renderPlan(*res.Plan, a.term)
	if res.Answer != "" && !tw.failed {
		text = strings.TrimRight(cleanText(res.Answer), "\n") + "\n\n" + text
	}
	if err := a.out.result(text, res); err != nil {
		return err
	}
	if tw.failed {
		return &exitError{code: 1, msg: "client: the agent failed: " + oneLine(tw.failure)}
	}
	return nil
}

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
