package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// defaultInterval is how often a watch polls: fast enough to feel live, and
// a query is a few milliseconds of work for the worker.
const defaultInterval = 500 * time.Millisecond

// liveView shows a block that changes over time. On a terminal it redraws
// the block in place; anywhere else it appends each new block after a blank
// line, so a program reading the output sees every state in order.
type liveView struct {
	w      io.Writer
	tty    bool
	height int // terminal rows, 0 when unknown
	rows   int // rows the last block took on the terminal
	shown  bool
}

func (v *liveView) show(block string) {
	if v.tty && v.height > 0 && (v.rows >= v.height || strings.Count(block, "\n") >= v.height) {
		// The cursor cannot go up past the top of the screen, so a block
		// taller than the terminal is redrawn on a cleared screen instead.
		io.WriteString(v.w, "\x1b[H\x1b[2J")
		v.rows = 0
	} else if v.tty {
		v.erase()
	} else if v.shown {
		io.WriteString(v.w, "\n")
	}
	io.WriteString(v.w, block)
	v.rows = strings.Count(block, "\n")
	v.shown = true
}

// erase removes the last block from a terminal (cursor up, clear to the end
// of the screen). Blocks are cut to the terminal width, so each line is
// exactly one row.
func (v *liveView) erase() {
	if v.tty && v.rows > 0 {
		fmt.Fprintf(v.w, "\x1b[%dA\r\x1b[J", v.rows)
	}
	v.rows = 0
}

// sessionClosed reports, once, when the session's workflow closes: it
// follows continue-as-new, so it only fires when the session really ends.
// It reports nil when the workflow completed, a *temporal.WorkflowExecutionError
// saying why otherwise, or the error when there is no such session. A lost
// connection is not a close: it keeps asking until the context ends.
func sessionClosed(ctx context.Context, c client.Client, id string) <-chan error {
	ch := make(chan error, 1)
	go func() {
		for {
			err := c.GetWorkflow(ctx, id, "").Get(ctx, nil)
			var outcome *temporal.WorkflowExecutionError
			var notFound *serviceerror.NotFound
			if err == nil || errors.As(err, &outcome) || errors.As(err, &notFound) || ctx.Err() != nil {
				ch <- err
				return
			}
			select { // then ask again, or see ctx.Err() above
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()
	return ch
}

// closedText says how a session ended, given what sessionClosed reported.
func closedText(err error) string {
	var timeout *temporal.TimeoutError
	var appErr *temporal.ApplicationError
	switch {
	case err == nil:
		return "completed"
	case temporal.IsCanceledError(err):
		return "was cancelled"
	case temporal.IsTerminatedError(err):
		return "was terminated"
	case errors.As(err, &timeout):
		return "timed out"
	case errors.As(err, &appErr):
		return "failed: " + appErr.Message()
	}
	return "failed: " + cmp.Or(errors.Unwrap(err), err).Error()
}

// pollEnd says why a poll loop stopped.
type pollEnd int

const (
	pollDone        pollEnd = iota // step said it was finished
	pollInterrupted                // Ctrl-C
	pollClosed                     // the session's workflow closed
)

// poll runs step now and then every interval until step reports done, the
// person interrupts, or the session closes; on close step runs once more, so
// the last state the session reached is seen. closedErr is how it closed
// (see closedText).
func (a *app) poll(ctx context.Context, id string, interval time.Duration, step func() (bool, error)) (end pollEnd, closedErr error, err error) {
	c, err := a.connect()
	if err != nil {
		return 0, nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	closed := sessionClosed(ctx, c, id)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	run := func() (bool, error) {
		done, err := step()
		if err != nil && ctx.Err() != nil {
			return false, nil
		}
		return done, err
	}
	for {
		done, err := run()
		switch {
		case err != nil:
			return 0, nil, err
		case done:
			return pollDone, nil, nil
		}
		select {
		case <-ctx.Done():
			return pollInterrupted, nil, nil
		case cerr := <-closed:
			if ctx.Err() != nil {
				return pollInterrupted, nil, nil
			}
			var notFound *serviceerror.NotFound
			if errors.As(cerr, &notFound) {
				return 0, nil, a.sessionError(id, cerr)
			}
			if done, err := run(); err != nil || done {
				return pollDone, nil, err
			}
			return pollClosed, cerr, nil
		case <-tick.C:
		}
	}
}

// follow polls a session with step until Ctrl-C or the session ends, and
// then says how it ended: a watch of the plan or of the log.
func (a *app) follow(ctx context.Context, id string, every time.Duration, step func() error) error {
	if every <= 0 {
		return usageErrorf("--interval must be positive")
	}
	end, closedErr, err := a.poll(ctx, id, every, func() (bool, error) { return false, step() })
	if err == nil && end == pollClosed {
		fmt.Fprintf(a.stderr, "session %s %s\n", id, closedText(closedErr))
	}
	return err
}
