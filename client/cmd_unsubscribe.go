package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/notify"
	"github.com/durabletodos/agenttodos/payloads"
)

func (a *app) unsubscribeCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "unsubscribe SESSION ID",
		Short: "Remove a webhook; what it has pending is given up (update unsubscribe)",
		Args:  positional(false, "SESSION", "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, sub := args[0], args[1]
			raw, err := payloads.Marshal(notify.Unsubscribe{ID: sub})
			if err != nil {
				return err
			}
			data, subs, err := a.updateSubscribers(cmd.Context(), id, contract.UpdateUnsubscribe, raw)
			if err != nil {
				return err
			}
			text := fmt.Sprintf("Unsubscribed %s from session %s; what it had pending is given up (client log %s shows it).\n", oneLine(sub), id, id)
			return a.printSubscribers(text, data, subs)
		},
	}
}
