package main

import "github.com/spf13/cobra"

func (a *app) startCommand() *cobra.Command {
	var sf sessionFlags
	var prompt string
	cmd := &cobra.Command{
		Use:   "start",
		Short: "Start a session and print its ID",
		Args:  positional(false),
		RunE: func(cmd *cobra.Command, _ []string) error {
			in, err := sf.input(prompt)
			if err != nil {
				return err
			}
			id, err := a.startSession(cmd.Context(), &sf, in)
			if err != nil {
				return err
			}
			return a.out.result(id+"\n", receipt{Session: id})
		},
	}
	sf.register(cmd.Flags())
	cmd.Flags().StringVar(&prompt, "prompt", "", "`TEXT`, a first message for the agent to work on")
	return cmd
}
