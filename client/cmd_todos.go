package main

import (
	"encoding/json"
	"time"

	"github.com/spf13/cobra"
)

func (a *app) todosCommand() *cobra.Command {
	var watch bool
	var every time.Duration
	cmd := &cobra.Command{
		Use:   "todos SESSION",
		Short: "Show the current plan",
		Args:  positional(false, "SESSION"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, id := cmd.Context(), args[0]
			if !watch {
				raw, st, err := a.queryState(ctx, id)
				if err != nil {
					return err
				}
				return a.out.result(renderPlan(st, a.term), json.RawMessage(raw))
			}
			out := a.out.streaming()
			view := &liveView{w: out.w, tty: a.term.tty, height: a.term.height}
			lastSeq := int64(-1)
			return a.follow(ctx, id, every, func() error {
				raw, st, err := a.queryState(ctx, id)
				switch {
				case err != nil && lastSeq < 0:
					return err
				case err != nil || st.Seq == lastSeq:
					// Unchanged, or the worker is restarting: keep the last
					// plan on screen and ask again at the next tick.
					return nil
				}
				lastSeq = st.Seq
				if out.text() {
					view.show(renderPlan(st, a.term))
					return nil
				}
				return out.value(json.RawMessage(raw))
			})
		},
	}
	cmd.Flags().BoolVarP(&watch, "watch", "w", false, "keep showing the plan as it changes, until Ctrl-C or the session ends")
	cmd.Flags().DurationVar(&every, "interval", defaultInterval, "how often --watch asks")
	return cmd
}
