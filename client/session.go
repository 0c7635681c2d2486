package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-runewidth"
	"github.com/spf13/pflag"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/durabletodos/agenttodos/activities"
	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/workflows"
)

// sessionFlags are the flags `start` and `run` share.
type sessionFlags struct {
	id, model, script, taskQueue string
	thinkTime                    time.Duration
	subscribe                    subscribeFlags
}

func (f *sessionFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.id, "id", "", "session `ID` (workflow ID); default session-<random>")
	fs.StringVar(&f.model, "model", "", "the chat model `M` (default: the worker's AGENT_MODEL; \"scripted\" with --script)")
	// The worker's default, read as the worker reads it.
	fs.StringVar(&f.taskQueue, "task-queue", cmp.Or(os.Getenv("AGENT_TASK_QUEUE"), contract.TaskQueue), "task `QUEUE` the worker polls (env AGENT_TASK_QUEUE)")
	fs.StringVar(&f.script, "script", "", "replay assistant turns from `FILE` (a JSON array, or {\"turns\":[...]}) with the offline scripted model")
	fs.DurationVar(&f.thinkTime, "think-time", 800*time.Millisecond, "with --script: how long each scripted turn takes, so the plan can be watched changing")
	f.subscribe.register(fs)
}

// input builds the session's input from the flags.
func (f *sessionFlags) input(prompt string) (workflows.SessionInput, error) {
	in := workflows.SessionInput{Prompt: prompt, Model: f.model}
	subs, err := f.subscribe.subscribers()
	if err != nil {
		return in, err
	}
	in.Subscribers = subs
	if f.script != "" {
		if f.model != "" && f.model != activities.ScriptedModel {
			return in, usageErrorf("--script replays turns with the %q model, not %q: drop --model", activities.ScriptedModel, f.model)
		}
		script, err := loadScript(f.script)
		if err != nil {
			return in, err
		}
		in.Model, in.Script, in.ScriptThinkTime = activities.ScriptedModel, script, f.thinkTime
	}
	return in, nil
}

// startSession starts an AgentSession and returns its ID.
func (a *app) startSession(ctx context.Context, f *sessionFlags, in workflows.SessionInput) (string, error) {
	id := cmp.Or(f.id, newSessionID())
	c, err := a.connect()
	if err != nil {
		return "", err
	}
	_, err = c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:        id,
		TaskQueue: f.taskQueue,
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

// newSessionID is short enough to type and random enough (40 bits) not to
// collide between people sharing a namespace.
func newSessionID() string { return "session-" + strings.ToLower(rand.Text()[:8]) }

// newUpdateID names a write so that sending it again is applied once.
func newUpdateID() string { return "client-" + strings.ToLower(rand.Text()[:16]) }

// sessionSummary is the one line the Temporal UI shows for a session: what it
// was asked to do, if anything.
func sessionSummary(in workflows.SessionInput) string {
	if p := strings.Join(strings.Fields(in.Prompt), " "); p != "" {
		return "Agent session: " + runewidth.Truncate(p, 120, "…")
	}
	return "Agent session"
}
