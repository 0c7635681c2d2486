// Command client drives agent sessions from a terminal: start one, write or
// watch its plan, read its history and log, talk to its agent.
//
//	client COMMAND [args] [flags]
//
// Run `client --help` for the commands. Commands, flags, help and shell
// completion are cobra's and pflag's, as in the stock temporal CLI.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := newApp().main(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// main runs one command line and returns the process exit code: 0 on
// success, 1 when the command failed, 2 when it was called wrongly, 130 when
// the person pressed Ctrl-C.
func (a *app) main(ctx context.Context, args []string) int {
	root := a.rootCommand()
	root.SetArgs(args)
	defer a.close()
	cmd, err := root.ExecuteContextC(ctx)
	var ee *exitError
	if err != nil && ctx.Err() != nil && !(errors.As(err, &ee) && ee.code == 130) {
		// Ctrl-C: whatever the call failed with, the person knows why.
		return 130
	}
	return a.report(cmd, err)
}

// report prints what a command's error means for a person and returns the
// exit code.
func (a *app) report(cmd *cobra.Command, err error) int {
	var ee *exitError
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case interrupted(err):
		return 130
	case errors.As(err, &ee):
		if ee.msg != "" {
			fmt.Fprintln(a.stderr, ee.msg)
		}
		return ee.code
	case errors.As(err, &ue):
		fmt.Fprintf(a.stderr, "client: %s (see '%s --help')\n", ue.msg, cmd.CommandPath())
		return 2
	default:
		fmt.Fprintf(a.stderr, "client: %s\n", a.explain(err))
		return 1
	}
}
