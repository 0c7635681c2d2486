// Command client drives agent sessions from a terminal: start one, write or
// watch its plan, read its history and log, talk to its agent. Its commands,
// flags, help and shell completion are cobra's and pflag's, as the stock
// temporal CLI's are; run `client --help` for them.
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mattn/go-colorable"
	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := newApp().main(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// app is one invocation of the CLI. Its streams and terminal facts are fields
// rather than os globals so tests can run commands against buffers.
type app struct {
	stdout, stderr io.Writer
	stdin          io.Reader
	// answers reads yes/no answers from stdin, once opened.
	answers *bufio.Reader
	// stdinPiped says stdin is a pipe or a file, not a person at a keyboard:
	// only then does `write` read a list from it unasked.
	stdinPiped bool
	// term describes stdout; its colour is settled by --color before a
	// command runs.
	term terminal
	// out prints every result, in the --output format.
	out printer

	conn connFlags
	// address and namespace are where the client connected, for hints.
	address, namespace string

	// dial connects to Temporal; tests replace it so no server is needed.
	dial   func(a *app) (client.Client, error)
	client client.Client
}

func newApp() *app {
	return &app{
		// On Windows consoles, colorable turns ANSI colours into console
		// calls; elsewhere it is os.Stdout itself.
		stdout:     colorable.NewColorable(os.Stdout),
		stderr:     os.Stderr,
		stdin:      os.Stdin,
		stdinPiped: isPipe(os.Stdin),
		term:       detectTerminal(os.Stdout),
		dial:       dialTemporal,
	}
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
