package main

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/durabletodos/agenttodos/contract"
)

func (a *app) sayCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "say SESSION TEXT...",
		Short: "Queue a message for the agent without waiting (signal user_message)",
		Args:  positional(true, "SESSION", "TEXT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := a.messageText(args[1:])
			if err != nil {
				return err
			}
			return a.send(cmd, args[0], contract.SignalUserMessage, text, "sent\n")
		},
	}
}

// messageText joins the words of a message, so it need not be quoted; a
// lone "-" reads it from stdin.
func (a *app) messageText(words []string) (string, error) {
	text := strings.Join(words, " ")
	if text == "-" {
		b, err := io.ReadAll(a.stdin)
		if err != nil {
			return "", err
		}
		text = strings.TrimSpace(string(b))
	}
	if strings.TrimSpace(text) == "" {
		return "", usageErrorf("the message is empty")
	}
	return text, nil
}
