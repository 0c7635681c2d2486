package main

import (
	"io"
	"os"

	"github.com/mattn/go-colorable"
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
