package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"go.temporal.io/sdk/client"
)

// app is one invocation of the CLI. Its streams and terminal facts are fields
// rather than os globals so tests can run commands against buffers.
type app struct {
	stdout, stderr io.Writer
	stdin          io.Reader
	// stdinPiped says stdin is a pipe or a file, not a person at a keyboard:
	// only then does `write` read a list from it unasked.
	stdinPiped bool
	// term describes stdout: whether it is a terminal, its width, colour.
	term terminal
	// helpOut is where -h usage goes: stderr, or stdout for `client help X`.
	helpOut io.Writer

	address, namespace string
	// current is the command being run, for its usage text.
	current *command

	// dial connects to Temporal; tests replace it so no server is needed.
	dial   func(a *app) (client.Client, error)
	client client.Client
}

func newApp() *app {
	return &app{
		stdout:     os.Stdout,
		stderr:     os.Stderr,
		stdin:      os.Stdin,
		stdinPiped: isPipe(os.Stdin),
		term:       detectTerminal(os.Stdout),
		helpOut:    os.Stderr,
		dial:       dialTemporal,
	}
}

// connect dials Temporal on first use, so commands that need no server
// (schema, help, argument errors) never wait on one.
func (a *app) connect() (client.Client, error) {
	if a.client != nil {
		return a.client, nil
	}
	c, err := a.dial(a)
	if err != nil {
		return nil, err
	}
	a.client = c
	return c, nil
}

func (a *app) close() {
	if a.client != nil {
		a.client.Close()
		a.client = nil
	}
}

// flagSet makes a flag set that carries the global connection flags, so
// they work before the command (`client --address X todos S`) and after it
// (`client todos S --address X`).
func (a *app) flagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	fs.StringVar(&a.address, "address", a.address, "Temporal frontend `host:port` (overrides TEMPORAL_ADDRESS)")
	fs.StringVar(&a.namespace, "namespace", a.namespace, "Temporal `namespace` (overrides TEMPORAL_NAMESPACE)")
	return fs
}

// commandFlags makes the flag set of the running command, whose -h prints
// the command's own usage.
func (a *app) commandFlags(name string) *flag.FlagSet {
	fs := a.flagSet(name)
	fs.Usage = func() {
		if a.current != nil {
			commandUsage(a.helpOut, a.current, fs)
		}
	}
	return fs
}

// parseInterspersed parses flags that may come before, between or after the
// positional arguments (`write S --todo x`, `write --todo x S`), which the
// flag package alone stops at. Everything after "--" is positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, &flagError{err}
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// parseCommand parses a command's flags and checks its positional arguments
// against names, the ones it requires; variadic lets the last one take every
// remaining word (a prompt need not be quoted).
func parseCommand(fs *flag.FlagSet, args []string, names []string, variadic bool) ([]string, error) {
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) < len(names) {
		what := names[len(pos)]
		if what == "SESSION" {
			what += " (a workflow ID, as `client start` prints it)"
		}
		return nil, usageErrorf("missing %s", what)
	}
	if !variadic && len(pos) > len(names) {
		return nil, usageErrorf("unexpected argument %q", pos[len(names)])
	}
	return pos, nil
}

// usageError is a command called wrongly: exit code 2 and a pointer to -h.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// flagError is a flag the flag package rejected; it has already printed
// the error and the command's usage.
type flagError struct{ err error }

func (e *flagError) Error() string { return e.err.Error() }

// exitError carries an exact message to print on stderr and an exit code;
// the message is printed as is, with no "client:" prefix, because some are
// part of the contract (`Error: <message>`).
type exitError struct {
	code  int
	msg   string
	cause error
}

func (e *exitError) Error() string { return e.msg }

func (e *exitError) Unwrap() error { return e.cause }

// report prints what a command's error means for a person and returns the
// exit code.
func (a *app) report(err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	var ue *usageError
	var fe *flagError
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case interrupted(err):
		return 130
	case errors.As(err, &ee):
		if ee.msg != "" {
			fmt.Fprintln(a.stderr, ee.msg)
		}
		return ee.code
	case errors.As(err, &ue):
		help := "client help"
		if a.current != nil {
			help += " " + a.current.name
		}
		fmt.Fprintf(a.stderr, "client: %s (see '%s')\n", ue.msg, help)
		return 2
	case errors.As(err, &fe):
		return 2
	default:
		fmt.Fprintf(a.stderr, "client: %s\n", a.explain(err))
		return 1
	}
}
