package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/workflows"
)

// sessionFlags are the flags `start` and `run` share.
type sessionFlags struct {
	id, model, script, taskQueue string
	thinkTime                    time.Duration
}

func (f *sessionFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.id, "id", "", "session `ID` (workflow ID); default session-<random>")
	fs.StringVar(&f.model, "model", "", "the chat model `M` (default: the worker's AGENT_MODEL; \"scripted\" with --script)")
	fs.StringVar(&f.taskQueue, "task-queue", taskQueue(), "task `QUEUE` the worker polls (AGENT_TASK_QUEUE, as the worker reads it)")
	fs.StringVar(&f.script, "script", "", "replay assistant turns from `FILE` (a JSON array, or {\"turns\":[...]}) with the offline scripted model")
	fs.DurationVar(&f.thinkTime, "think-time", 800*time.Millisecond, "with --script: how long each scripted turn takes, so the plan can be watched changing")
}

// input builds the session's input from the flags.
func (f *sessionFlags) input(prompt string) (workflows.SessionInput, error) {
	in := workflows.SessionInput{Prompt: prompt, Model: f.model}
	if f.script != "" {
		if f.model != "" && f.model != scriptedModel {
			return in, usageErrorf("--script replays turns with the %q model, not %q: drop --model", scriptedModel, f.model)
		}
		script, err := loadScript(f.script)
		if err != nil {
			return in, err
		}
		in.Model, in.Script, in.ScriptThinkTime = scriptedModel, script, f.thinkTime
	}
	return in, nil
}

// taskQueue is the worker's default: AGENT_TASK_QUEUE, else the contract's.
func taskQueue() string {
	if q := os.Getenv("AGENT_TASK_QUEUE"); q != "" {
		return q
	}
	return contract.TaskQueue
}

// startSession starts an AgentSession and returns its ID.
func (a *app) startSession(ctx context.Context, id, queue string, in workflows.SessionInput) (string, error) {
	if id == "" {
		id = newSessionID()
	}
	c, err := a.connect()
	if err != nil {
		return "", err
	}
	_, err = c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:        id,
		TaskQueue: queue,
		// Attaching to a running session of the same ID would silently drop
		// this one's prompt and script.
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		// The Temporal UI shows it beside the plan (User Metadata).
		StaticSummary: sessionSummary(in),
	}, contract.WorkflowType, in)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return "", &exitError{code: 1, msg: fmt.Sprintf("client: session %q is already running", id)}
	}
	return id, err
}

// newSessionID is short enough to type and random enough not to collide
// between people sharing a namespace.
func newSessionID() string { return "session-" + randomHex(4) }

// newUpdateID names a write so that sending it again is applied once.
func newUpdateID() string { return "client-" + randomHex(8) }

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func (a *app) start(ctx context.Context, args []string) error {
	fs := a.commandFlags("start")
	var sf sessionFlags
	sf.register(fs)
	prompt := fs.String("prompt", "", "`TEXT`, a first message for the agent to work on")
	if _, err := parseCommand(fs, args, nil, false); err != nil {
		return err
	}
	in, err := sf.input(*prompt)
	if err != nil {
		return err
	}
	id, err := a.startSession(ctx, sf.id, sf.taskQueue, in)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(a.stdout, id)
	return err
}

func (a *app) prompt(ctx context.Context, args []string) error {
	id, text, c, err := a.messageCommand("prompt", args)
	if err != nil {
		return err
	}
	// No timeout: an agent turn takes as long as the model does; Ctrl-C
	// stops waiting (the session still answers, visible in `client log`).
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
	_, err = fmt.Fprintln(a.stdout, cleanText(answer))
	return err
}

func (a *app) say(ctx context.Context, args []string) error {
	id, text, c, err := a.messageCommand("say", args)
	if err != nil {
		return err
	}
	if err := c.SignalWorkflow(ctx, id, "", contract.SignalUserMessage, text); err != nil {
		return a.sessionError(id, err)
	}
	_, err = fmt.Fprintln(a.stdout, "sent")
	return err
}

// messageText joins the words of a message, so it need not be quoted; a
// lone "-" reads it from stdin.
// messageCommand reads the command line of prompt and say: the session, the
// message, and a connection to send it on.
func (a *app) messageCommand(name string, args []string) (string, string, client.Client, error) {
	pos, err := parseCommand(a.commandFlags(name), args, []string{"SESSION", "TEXT"}, true)
	if err != nil {
		return "", "", nil, err
	}
	text, err := a.messageText(pos[1:])
	if err != nil {
		return "", "", nil, err
	}
	c, err := a.connect()
	if err != nil {
		return "", "", nil, err
	}
	return pos[0], text, c, nil
}

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

func (a *app) cancel(ctx context.Context, args []string) error {
	fs := a.commandFlags("cancel")
	pos, err := parseCommand(fs, args, []string{"SESSION"}, false)
	if err != nil {
		return err
	}
	c, err := a.connect()
	if err != nil {
		return err
	}
	if err := c.CancelWorkflow(ctx, pos[0], ""); err != nil {
		return a.sessionError(pos[0], err)
	}
	_, err = fmt.Fprintln(a.stdout, "cancel requested")
	return err
}

// sessionSummary is the one line the Temporal UI shows for a session: what it
// was asked to do, if anything.
func sessionSummary(in workflows.SessionInput) string {
	const most = 120
	p := strings.Join(strings.Fields(in.Prompt), " ")
	if p == "" {
		return "Agent session"
	}
	if r := []rune(p); len(r) > most {
		p = string(r[:most-1]) + "…"
	}
	return "Agent session: " + p
}
