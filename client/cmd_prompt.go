package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/durabletodos/agenttodos/contract"
)

func (a *app) promptCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "prompt SESSION TEXT...",
		Short: "Send a message and print the agent's answer (update prompt)",
		Long: `Send a message and print the agent's answer when its turn is over. The words
after SESSION are the message: quotes are optional, words that start with
"-" go after "--", and a lone "-" reads it from stdin.`,
		Example: `  client prompt demo Split the second item in two
  client prompt demo -- Add a --json flag
  git diff | client prompt demo -`,
		Args: positional(true, "SESSION", "TEXT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			text, err := a.messageText(args[1:])
			if err != nil {
				return err
			}
			c, err := a.connect()
			if err != nil {
				return err
			}
			// No timeout: an agent turn takes as long as the model does;
			// Ctrl-C stops waiting (the session still answers, visible in
			// `client log`).
			ctx := cmd.Context()
			h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
				WorkflowID:   id,
				UpdateName:   contract.UpdatePrompt,
				Args:         []any{text},
				WaitForStage: client.WorkflowUpdateStageCompleted,
			})
			var answer string
			if err == nil {
				err = h.Get(ctx, &answer)
			}
			if err != nil {
				if ctx.Err() != nil {
					return &exitError{code: 130, msg: fmt.Sprintf("client: stopped waiting; the agent carries on (client log %s)", id)}
				}
				if rej, ok := rejected(err); ok {
					return rej
				}
				return a.sessionError(id, err)
			}
			return a.out.result(cleanText(answer)+"\n", receipt{Session: id, Answer: answer})
		},
	}
}
