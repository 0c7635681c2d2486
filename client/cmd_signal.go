package main

import (
	"github.com/spf13/cobra"

	"github.com/durabletodos/agenttodos/contract"
)

func (a *app) signalCommand() *cobra.Command {
	var src listSource
	cmd := &cobra.Command{
		Use:   "signal SESSION [-]",
		Short: "Replace the plan without waiting (signal todo_write)",
		Args:  positional(true, "SESSION"),
		RunE: func(cmd *cobra.Command, args []string) error {
			raw, err := src.args(args[1:], a.stdin, a.stdinPiped)
			if err != nil {
				return err
			}
			return a.send(cmd, args[0], contract.SignalTodoWrite, rawJSON(raw), "signalled\n")
		},
	}
	src.register(cmd.Flags())
	return cmd
}

// send signals a session and says so, as text or as a receipt.
func (a *app) send(cmd *cobra.Command, id, signal string, arg any, text string) error {
	c, err := a.connect()
	if err != nil {
		return err
	}
	if err := c.SignalWorkflow(cmd.Context(), id, "", signal, arg); err != nil {
		return a.sessionError(id, err)
	}
	return a.out.result(text, receipt{Session: id, Signal: signal})
}
