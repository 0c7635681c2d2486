package workflows

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/durabletodos/agenttodos/activities"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
)

// prompt is one user message waiting for the agent. An update waits on done;
// a signal or the session's first prompt does not.
type prompt struct {
	text   string
	answer string
	err    error
	done   bool
}

// Error types the agent loop fails a prompt with.
const (
	ErrTypeTurnLimit   = "TurnLimitReached"
	ErrTypeEmptyPrompt = "EmptyPrompt"
)

// errContinueAsNew tells the main loop to hand the session to a new run in
// the middle of a prompt that nobody is waiting on.
var errContinueAsNew = errors.New("continue as new")

func (s *session) registerAgentHandlers(ctx workflow.Context) error {
	return workflow.SetUpdateHandlerWithOptions(ctx, UpdatePrompt, func(ctx workflow.Context, text string) (string, error) {
		p := &prompt{text: text}
		s.inbox = append(s.inbox, p)
		if err := workflow.Await(ctx, func() bool { return p.done }); err != nil {
			return "", err
		}
		return p.answer, p.err
	}, workflow.UpdateHandlerOptions{
		Validator: func(_ workflow.Context, text string) error {
			if strings.TrimSpace(text) == "" {
				return temporal.NewNonRetryableApplicationError("prompt must be a non-empty string", ErrTypeEmptyPrompt, nil)
			}
			return nil
		},
		Description: "Send a user message and wait for the assistant's final answer to it.",
	})
}

// queueUserMessage takes a user_message signal: a message nobody waits on.
func (s *session) queueUserMessage(ctx workflow.Context, ch workflow.ReceiveChannel) {
	var text string
	ch.Receive(ctx, &text)
	if strings.TrimSpace(text) != "" {
		s.inbox = append(s.inbox, &prompt{text: text, done: true})
	}
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
		answer, err := s.runTurns(ctx, !p.done)
		if errors.Is(err, errContinueAsNew) {
			s.resuming = true
			return err
		}
		p.answer, p.err, p.done = answer, err, true
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
	if limit <= 0 {
		limit = defaultMaxTurnsPerPrompt
	}
	for ; s.turnsUsed < limit; s.turnsUsed++ {
		if !waited && s.shouldContinueAsNew(ctx) {
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
		StartToCloseTimeout:    2 * time.Minute,
		ScheduleToCloseTimeout: 15 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:    time.Second,
			BackoffCoefficient: 2,
			MaximumInterval:    time.Minute,
		},
	})
	var out activities.ModelTurnOutput
	err := workflow.ExecuteActivity(actx, ActivityModelTurn, in).Get(ctx, &out)
	return out, err
}
