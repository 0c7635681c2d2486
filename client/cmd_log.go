package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/sessionlog"
)

func (a *app) logCommand() *cobra.Command {
	var page pageFlags
	var follow bool
	var every time.Duration
	cmd := &cobra.Command{
		Use:   "log SESSION",
		Short: "List the session's events, oldest first",
		Args:  positional(false, "SESSION"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, id := cmd.Context(), args[0]
			req := page.request()
			render := func(ev sessionlog.Event) string { return renderEvent(ev, a.term, page.verbose) }
			if !follow {
				events, err := queryPages(ctx, a, id, contract.QuerySessionLog, req, sessionlog.EventSeq)
				if err != nil {
					return err
				}
				return printList(a.out, events, render)
			}
			first := true
			return a.follow(ctx, id, every, func() error {
				events, err := a.queryLog(ctx, id, req)
				if err != nil {
					if first {
						return err
					}
					return nil // the worker may be restarting: ask again
				}
				first = false
				if len(events) > 0 {
					req.AfterSeq = events[len(events)-1].Seq
				}
				return printList(a.out.streaming(), events, render)
			})
		},
	}
	page.register(cmd.Flags(), "show whole texts and the items of each plan")
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing new events until Ctrl-C or the session ends")
	cmd.Flags().DurationVar(&every, "interval", defaultInterval, "how often --follow asks")
	return cmd
}
