package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/embedded"
	"github.com/durabletodos/agenttodos/todo"
)

// writeTimeout bounds a todo_write update: validation and one local
// activity take milliseconds, so a long wait means no worker is running.
const writeTimeout = 30 * time.Second

// defaultInterval is how often a watch polls: fast enough to feel live, and
// a query is a few milliseconds of work for the worker.
const defaultInterval = 500 * time.Millisecond

func (a *app) write(ctx context.Context, args []string) error {
	fs := a.commandFlags("write")
	var src listSource
	src.register(fs)
	updateID := fs.String("update-id", "", "update `ID`; a retry with the same ID is applied once (default: a new one)")
	asJSON := fs.Bool("json", false, "print the TodoWriteResult JSON as the session returned it")
	id, raw, c, err := a.listCommand(fs, &src, args)
	if err != nil {
		return err
	}
	if err := checkUpdateSize(raw); err != nil {
		return err
	}
	if *updateID == "" {
		*updateID = newUpdateID()
	}
	// A write that times out is sent again with the same update ID: the
	// session applies it once, however many times it arrives.
	var data []byte
	for attempt := 1; ; attempt++ {
		data, err = a.sendWrite(ctx, c, id, *updateID, raw)
		if err == nil || !isTimeout(err) || ctx.Err() != nil || attempt == writeAttempts {
			break
		}
		fmt.Fprintf(a.stderr, "todo_write timed out after %s; sending it again with update ID %s\n", writeTimeout, *updateID)
	}
	if err != nil {
		if rej, ok := rejected(err); ok {
			return rej
		}
		return a.sessionError(id, err)
	}
	if *asJSON {
		_, err := fmt.Fprintf(a.stdout, "%s\n", data)
		return err
	}
	var res todo.WriteResult
	if err := json.Unmarshal(data, &res); err != nil {
		return fmt.Errorf("todo_write returned unexpected JSON: %w", err)
	}
	fmt.Fprintln(a.stdout, res.Message)
	_, err = io.WriteString(a.stdout, renderPlan(todo.State{Todos: res.Todos, Counts: res.Counts, Seq: res.Seq}, a.term))
	return err
}

// writeAttempts bounds how often a timed-out write is sent again.
const writeAttempts = 3

// sendWrite sends one todo_write update and returns the result's JSON as the
// session wrote it.
func (a *app) sendWrite(ctx context.Context, c client.Client, id, updateID string, raw []byte) ([]byte, error) {
	uctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	h, err := c.UpdateWorkflow(uctx, client.UpdateWorkflowOptions{
		WorkflowID:   id,
		UpdateName:   contract.UpdateTodoWrite,
		UpdateID:     updateID,
		Args:         []any{rawJSON(raw)},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return nil, err
	}
	var result converter.RawValue
	if err := h.Get(uctx, &result); err != nil {
		return nil, err
	}
	return result.Payload().GetData(), nil
}

func (a *app) signalWrite(ctx context.Context, args []string) error {
	fs := a.commandFlags("signal")
	var src listSource
	src.register(fs)
	id, raw, c, err := a.listCommand(fs, &src, args)
	if err != nil {
		return err
	}
	if err := c.SignalWorkflow(ctx, id, "", contract.SignalTodoWrite, rawJSON(raw)); err != nil {
		return a.sessionError(id, err)
	}
	_, err = fmt.Fprintln(a.stdout, "signalled")
	return err
}

// listCommand reads the command line of write and signal: the session, the
// list from its one source, and a connection to send it on.
func (a *app) listCommand(fs *flag.FlagSet, src *listSource, args []string) (string, []byte, client.Client, error) {
	pos, err := parseCommand(fs, args, []string{"SESSION"}, true)
	if err != nil {
		return "", nil, nil, err
	}
	raw, err := src.args(pos[1:], a.stdin, a.stdinPiped)
	if err != nil {
		return "", nil, nil, err
	}
	c, err := a.connect()
	if err != nil {
		return "", nil, nil, err
	}
	return pos[0], raw, c, nil
}

func (a *app) todos(ctx context.Context, args []string) error {
	fs := a.commandFlags("todos")
	asJSON := fs.Bool("json", false, "print TodoState JSON exactly as the query returns it (one line per change with --watch)")
	watch := fs.Bool("watch", false, "keep showing the plan as it changes, until Ctrl-C or the session ends")
	interval := fs.Duration("interval", defaultInterval, "how often --watch asks")
	pos, err := parseCommand(fs, args, []string{"SESSION"}, false)
	if err != nil {
		return err
	}
	if *interval <= 0 {
		return usageErrorf("--interval must be positive")
	}
	id := pos[0]
	if !*watch {
		raw, st, err := a.queryState(ctx, id)
		if err != nil {
			return err
		}
		if *asJSON {
			_, err = fmt.Fprintf(a.stdout, "%s\n", raw)
		} else {
			_, err = io.WriteString(a.stdout, renderPlan(st, a.term))
		}
		return err
	}
	return a.watchPlan(ctx, id, *interval, *asJSON)
}

// watchPlan shows the plan each time its seq changes, until Ctrl-C or the
// session ends.
func (a *app) watchPlan(ctx context.Context, id string, interval time.Duration, asJSON bool) error {
	c, err := a.connect()
	if err != nil {
		return err
	}
	view := &liveView{w: a.stdout, tty: a.term.tty && !asJSON, height: a.term.height}
	lastSeq := int64(-1)
	end, closedErr, err := a.poll(ctx, c, id, interval, func() (bool, error) {
		raw, st, err := a.queryState(ctx, id)
		if err != nil {
			if lastSeq < 0 {
				return false, err
			}
			// The worker may be restarting: keep the last plan on screen
			// and ask again at the next tick.
			return false, nil
		}
		if st.Seq == lastSeq {
			return false, nil
		}
		lastSeq = st.Seq
		if asJSON {
			fmt.Fprintf(a.stdout, "%s\n", raw)
		} else {
			view.show(renderPlan(st, a.term))
		}
		return false, nil
	})
	if err != nil {
		return err
	}
	if end == pollClosed {
		fmt.Fprintf(a.stderr, "session %s %s\n", id, closedText(closedErr))
	}
	return nil
}

// checkUpdateSize refuses a list the server would never deliver: an update
// request over history.maxInFlightUpdatePayloads is answered with
// ResourceExhausted, which the SDK retries until the deadline. Such a list
// breaks a rule at the default limits, and that rule's message is the answer.
func checkUpdateSize(raw []byte) error {
	if len(raw) < embedded.MaxInFlightUpdatePayloads {
		return nil
	}
	if _, err := todo.Parse(raw, todo.Limits{}); err != nil {
		rej, _ := rejected(err)
		return rej
	}
	return &exitError{code: 1, msg: fmt.Sprintf("client: the list is %d bytes as JSON; Temporal takes at most %d in one update", len(raw), embedded.MaxInFlightUpdatePayloads)}
}
