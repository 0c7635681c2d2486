package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
)

// runResult is what `run` prints for a program.
type runResult struct {
	Session string     `json:"session"`
	Answer  string     `json:"answer,omitempty"`
	Failure string     `json:"failure,omitempty"`
	Plan    todo.State `json:"plan"`
}

func (a *app) runCommand() *cobra.Command {
	var sf sessionFlags
	var watch bool
	var every time.Duration
	cmd := &cobra.Command{
		Use:   "run PROMPT...",
		Short: "Start a session on a prompt, watch its plan, print the answer",
		Long: `Start a session on a prompt, show its plan live while the agent works, then
print the answer and the final plan. The session's ID goes to stderr.`,
		Example: `  client run --script examples/plan-and-build.json "Add a --json flag to the report command"
  client run Plan and write a migration that adds a created_at column`,
		Args: positional(true, "PROMPT"),
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
			return a.watchTurn(cmd, id, watch && a.out.text(), time.Duration(every))
		},
	}
	sf.register(cmd.Flags())
	cmd.Flags().BoolVarP(&watch, "watch", "w", true, "show the plan live while the agent works (--watch=false: just wait)")
	cmd.Flags().DurationVar(&every, "interval", defaultInterval, "how often to look at the session")
	return cmd
}

// watchTurn follows a session's log until the agent has answered the last
// message, showing the plan as it changes, then prints the outcome.
func (a *app) watchTurn(cmd *cobra.Command, id string, watch bool, every time.Duration) error {
	ctx := cmd.Context()
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
	res := runResult{Session: id, Plan: tw.plan}
	if tw.failed {
		res.Failure = tw.failure
	} else {
		res.Answer = tw.answer
	}
	if _, st, err := a.queryState(ctx, id); err == nil {
		res.Plan = st
	}
	view.erase()
	if view.shown && !view.tty {
		fmt.Fprintln(a.out.w)
	}
	text := renderPlan(res.Plan, a.term)
	if res.Answer != "" {
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
