package main

import "github.com/spf13/cobra"

func (a *app) subscribersCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "subscribers SESSION",
		Short: "List the session's webhooks and what each has yet to get (query subscribers)",
		Long: `List the session's webhooks: their ID, the kinds of change they get, how
many notifications each has pending and the seq of the oldest, the secret they
are signed with, how long each is retried, and the URL. A webhook with a
queue is shown in yellow: its receiver is not answering 2xx (client log shows
why).`,
		Args: positional(false, "SESSION"),
		RunE: func(cmd *cobra.Command, args []string) error {
			raw, subs, err := a.querySubscribers(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.printSubscribers("", raw, subs)
		},
	}
}
