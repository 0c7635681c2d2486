package main

import (
	"github.com/spf13/cobra"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/todo"
)

func (a *app) historyCommand() *cobra.Command {
	var page pageFlags
	cmd := &cobra.Command{
		Use:   "history SESSION",
		Short: "List every accepted plan, oldest first",
		Args:  positional(false, "SESSION"),
		RunE: func(cmd *cobra.Command, args []string) error {
			snaps, err := queryPages(cmd.Context(), a, args[0], contract.QueryTodoHistory, page.request(), func(s *todo.Snapshot) int64 { return s.Seq })
			if err != nil {
				return err
			}
			return printList(a.out, snaps, func(s todo.Snapshot) string { return renderSnapshot(s, a.term, page.verbose) })
		},
	}
	page.register(cmd.Flags(), "list each snapshot's items")
	return cmd
}
