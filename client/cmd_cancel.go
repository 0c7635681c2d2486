package main

import "github.com/spf13/cobra"

func (a *app) cancelCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "cancel SESSION",
		Short: "Cancel the session",
		Args:  positional(false, "SESSION"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			c, err := a.connect()
			if err != nil {
				return err
			}
			if err := c.CancelWorkflow(cmd.Context(), id, ""); err != nil {
				return a.sessionError(id, err)
			}
			return a.out.result("cancel requested\n", receipt{Session: id, CancelRequested: true})
		},
	}
}
