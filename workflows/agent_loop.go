package workflows

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/durabletodos/agenttodos/activities"
	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
)

// prompt is one user message waiting for the agent. A prompt update waits
// on done; a user_message signal or the session's first prompt does not.
type prompt struct {
	text string
	// waited says an update is waiting on the answer: the prompt cannot be
	// carried into another run, because its update cannot follow it there.
	waited bool
	answer string
	// answerSeq is the seq of the message that answered it.
	answerSeq int64
	err       error
	done      bool
}

// Error types the agent loop fails a prompt with.
const (
	ErrTypeTurnLimit     = "TurnLimitReached"
	ErrTypeEmptyPrompt   = "EmptyPrompt"
	ErrTypePromptTooLong = "PromptTooLong"
)

// A model turn may take this long; it heartbeats every
// activities.HeartbeatInterval meanwhile.
const (
	modelTurnTimeout          = 10 * time.Minute
	modelTurnHeartbeatTimeout = 6 * activities.HeartbeatInterval
)

// errContinueAsNew tells the main loop to hand the session to a new run in
// the middle of a prompt that nobody is waiting on.
var errContinueAsNew = errors.New("continue as new")

func (s *session) registerAgentHandlers(ctx workflow.Context) error {
	return workflow.SetUpdateHandlerWithOptions(ctx, contract.UpdatePrompt, s.onPrompt, workflow.UpdateHandlerOptions{
		Validator:   func(_ workflow.Context, text string) error { return checkPrompt(text) },
		Description: "Send a user message and wait for the assistant's final answer to it.",
	})
}

// checkPrompt is the rule for every user message, waited on or not.
func checkPrompt(text string) error {
	if strings.TrimSpace(text) == "" {
		return temporal.NewNonRetryableApplicationError("prompt must be a non-empty string", ErrTypeEmptyPrompt, nil)
	}
	if len(text) > MaxPromptBytes {
		return temporal.NewNonRetryableApplicationError(
			"prompt must be at most "+strconv.Itoa(MaxPromptBytes)+" bytes (got "+strconv.Itoa(len(text))+")", ErrTypePromptTooLong, nil)
	}
	return nil
}

func (s *session) onPrompt(ctx workflow.Context, text string) (string, error) {
	id := workflow.GetCurrentUpdateInfo(ctx).ID
	if s.integrity {
		if a, ok := s.answered.lookup(contract.UpdatePrompt, id); ok {
			return a.result()
		}
	}
	p := &prompt{text: text, waited: true}
	s.inbox = append(s.inbox, p)
	if err := workflow.Await(ctx, func() bool { return p.done }); err != nil {
		return "", err
	}
	if s.integrity {
		s.answered.remember(promptAnswer(id, p.answerSeq, p.answer, p.err))
	}
	return p.answer, p.err
}

// queueUserMessage takes a user_message signal: a message nobody waits on.
// One that breaks the prompt rules is logged as user/rejected.
func (s *session) queueUserMessage(ctx workflow.Context, text string) {
	if !s.integrity {
		if strings.TrimSpace(text) != "" {
			s.inbox = append(s.inbox, &prompt{text: text})
		}
		return
	}
	if err := checkPrompt(text); err != nil {
		d := rejectedData(err, todo.Source{Kind: todo.SourceSignal, ID: "user-message"}, text)
		s.appendEvent(ctx, sessionlog.UserRejected, sessionlog.UserRejectedData{
			Error: d.Error, TextBytes: d.ArgumentsBytes, TextSHA256: d.ArgumentsSHA256, TextPrefix: d.ArgumentsPrefix,
		})
		return
	}
	s.inbox = append(s.inbox, &prompt{text: text})
}

// work runs the agent on the next prompt, or resumes the one a previous run
// handed over.
func (s *session) work(ctx workflow.Context) error {
	if !s.resuming {
		p := s.inbox[0]
		s.inbox = s.inbox[1:]
		s.prompts++
		s.appendEvent(ctx, sessionlog.UserMessage, sessionlog.MessageData{Text: p.text})
		s.turnsUsed = 0
		answer, err := s.runTurns(ctx, p.waited)
		if errors.Is(err, errContinueAsNew) {
			s.resuming = true
			return err
		}
		p.answer, p.answerSeq, p.err, p.done = answer, s.seq, err, true
		if err != nil && !temporal.IsCanceledError(err) {
			workflow.GetLogger(ctx).Warn("Prompt failed", "error", err)
			return nil
		}
		return err
	}
	s.resuming = false
	_, err := s.runTurns(ctx, false)
	if errors.Is(err, errContinueAsNew) {
		s.resuming = true
	}
	if err != nil && !errors.Is(err, errContinueAsNew) && !temporal.IsCanceledError(err) {
		workflow.GetLogger(ctx).Warn("Resumed prompt failed", "error", err)
		return nil
	}
	return err
}

// runTurns calls the model until it answers without tool calls. waited says
// an update is waiting on the answer, so the run cannot continue as new
// in the middle (an update cannot outlive its run).
func (s *session) runTurns(ctx workflow.Context, waited bool) (string, error) {
	limit := s.in.MaxTurnsPerPrompt
	for ; s.turnsUsed < limit; s.turnsUsed++ {
		if !waited && s.shouldContinueAsNew(ctx) && (!s.integrity || s.mayContinueAsNew()) {
			return "", errContinueAsNew
		}
		out, err := s.modelTurn(ctx)
		if err != nil {
			s.appendEvent(ctx, sessionlog.TurnFailed, sessionlog.MessageData{Text: todo.ErrorMessage(err)})
			return "", err
		}
		s.appendEvent(ctx, sessionlog.AssistantMessage, out.Message)
		if len(out.Message.ToolCalls) == 0 {
			return out.Message.Content, nil
		}
		// Several calls in one message run in order: the second may depend
		// on the first (a plan written, then revised).
		for _, call := range out.Message.ToolCalls {
			s.appendEvent(ctx, sessionlog.ToolCall, call)
			result := s.runTool(ctx, call)
			s.appendEvent(ctx, sessionlog.ToolResult, sessionlog.ToolResultData{ToolCallID: call.ID, Name: call.Name, Content: result})
		}
	}
	err := temporal.NewNonRetryableApplicationError(
		"agent stopped after "+strconv.Itoa(limit)+" model turns without a final answer", ErrTypeTurnLimit, nil)
	s.appendEvent(ctx, sessionlog.TurnFailed, sessionlog.MessageData{Text: todo.ErrorMessage(err)})
	return "", err
}

// modelTurn asks the model for its next message. The input names a window of
// the session log, not the conversation itself: the activity reads the log
// through the session_log query, so history holds each message once.
func (s *session) modelTurn(ctx workflow.Context) (activities.ModelTurnOutput, error) {
	s.fitConversation(ctx)
	s.remindOfPlan(ctx)
	if s.steer {
		s.viewSeq = s.current.Seq
	}
	in := activities.ModelTurnInput{
		Model:        s.in.Model,
		SystemPrompt: s.in.SystemPrompt,
		FromSeq:      s.conversationFrom,
		UpToSeq:      s.seq,
	}
	if in.Model == activities.ScriptedModel {
		if s.scriptTurn < len(s.in.Script) {
			turn := s.in.Script[s.scriptTurn]
			in.Scripted = &turn
		}
		in.ScriptedThinkTime = s.in.ScriptThinkTime
		s.scriptTurn++
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		// Slow reasoning models take minutes; the heartbeat, not the
		// start-to-close timeout, notices a worker that died mid-request.
		StartToCloseTimeout:    modelTurnTimeout,
		HeartbeatTimeout:       modelTurnHeartbeatTimeout,
		ScheduleToCloseTimeout: 30 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:    time.Second,
			BackoffCoefficient: 2,
			MaximumInterval:    time.Minute,
		},
	})
	var out activities.ModelTurnOutput
	err := workflow.ExecuteActivity(actx, contract.ActivityModelTurn, in).Get(ctx, &out)
	return out, err
}
