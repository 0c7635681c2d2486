package activities

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/sessionlog"
)

// ScriptedModel names the offline model that replays the session's script.
const ScriptedModel = "scripted"

// Error types of a failed model turn, for errors.As and Type().
const (
	// ErrTypeModelNotConfigured: no model name in the input nor AGENT_MODEL.
	ErrTypeModelNotConfigured = "ModelNotConfigured"
	// ErrTypeModelUnavailable: a transient provider failure; retried.
	ErrTypeModelUnavailable = "ModelUnavailable"
	// ErrTypeModelRequestRejected: the provider refused the request (bad key,
	// unknown model, invalid request); retrying would not change the answer.
	ErrTypeModelRequestRejected = "ModelRequestRejected"
	// ErrTypeScriptExhausted: the scripted model has no turn left to replay.
	ErrTypeScriptExhausted = "ScriptExhausted"
	// ErrTypeInvalidModelTurn: the window of the input is empty or inverted.
	ErrTypeInvalidModelTurn = "InvalidModelTurn"
	// ErrTypeSessionLogUnavailable: there is no way to read the session log.
	ErrTypeSessionLogUnavailable = "SessionLogUnavailable"
)

// DefaultSystemPrompt is what the model is told when the session sets no
// system prompt of its own.
const DefaultSystemPrompt = `You are a careful software agent working in a durable runtime. ` +
	`Plan multi-step work with the todo_write tool: send the ENTIRE list on every call, ` +
	`mark an item in_progress when you start it and completed as soon as it is done, ` +
	`and keep the list current. When the work is done, answer the user briefly.`

// ModelTurnInput is one model turn. The conversation itself is not part of
// it: the activity reads it from the session's log, so the workflow history
// grows by one small input per turn instead of by the whole conversation.
type ModelTurnInput struct {
	// Model is "scripted" or an OpenAI-compatible model name; empty means
	// the configured default (AGENT_MODEL).
	Model string `json:"model"`
	// SystemPrompt replaces DefaultSystemPrompt. Empty sends the default, so
	// the common case adds nothing to each turn's input in history.
	SystemPrompt string `json:"systemPrompt,omitempty"`
	// FromSeq is the first event of the conversation window.
	FromSeq int64 `json:"fromSeq"`
	// UpToSeq is the last event the model may see: the window stays the same
	// when a retry runs after the log has grown.
	UpToSeq int64 `json:"upToSeq"`
	// Scripted is the turn the scripted model replays.
	Scripted *sessionlog.AssistantData `json:"scripted,omitempty"`
	// ScriptedThinkTime makes the scripted model take its time, like a real
	// one, so an offline demo can be watched.
	ScriptedThinkTime time.Duration `json:"scriptedThinkTime,omitempty"`
}

// ModelTurnOutput is the assistant's answer.
type ModelTurnOutput struct {
	// Message holds the text and the tool calls, arguments verbatim even when
	// they are not valid JSON: the workflow answers those with an Error
	// result, which is how the model learns to fix them.
	Message      sessionlog.AssistantData `json:"message"`
	FinishReason string                   `json:"finishReason,omitempty"`
	// Requested is how many messages were sent to the model.
	Requested int `json:"requested"`
}

// ModelConfig is how to reach the OpenAI-compatible endpoint.
type ModelConfig struct {
	// BaseURL is the API root, e.g. https://api.openai.com/v1; empty means
	// the SDK's default.
	BaseURL string
	APIKey  string
	// DefaultModel is used when the session names no model.
	DefaultModel string
	// HTTPClient replaces the SDK's default client (proxies, tests).
	HTTPClient *http.Client
	// Timeout bounds one request; zero leaves it to the activity's
	// StartToClose timeout.
	Timeout time.Duration
}

// ModelConfigFromEnv reads OPENAI_BASE_URL, OPENAI_API_KEY and AGENT_MODEL.
func ModelConfigFromEnv() ModelConfig {
	return ModelConfig{
		BaseURL:      os.Getenv("OPENAI_BASE_URL"),
		APIKey:       os.Getenv("OPENAI_API_KEY"),
		DefaultModel: os.Getenv("AGENT_MODEL"),
	}
}

// LogReader returns the session log events with seq > req.AfterSeq, oldest
// first, at most req.Limit of them, from the given workflow run.
type LogReader func(ctx context.Context, workflowID, runID string, req sessionlog.PageRequest) ([]sessionlog.Event, error)

// QueryLogReader reads the log with the session_log query of the running
// workflow.
func QueryLogReader(c client.Client) LogReader {
	return func(ctx context.Context, workflowID, runID string, req sessionlog.PageRequest) ([]sessionlog.Event, error) {
		v, err := c.QueryWorkflow(ctx, workflowID, runID, contract.QuerySessionLog, req)
		if err != nil {
			return nil, err
		}
		var events []sessionlog.Event
		if err := v.Get(&events); err != nil {
			return nil, err
		}
		return events, nil
	}
}

// Models runs model turns. Register it with the worker; its ModelTurn method
// is the ModelTurn activity.
type Models struct {
	// Client is the Temporal client the session log is queried with.
	Client client.Client
	Config ModelConfig
	// Log replaces the query, so tests can feed events without a server;
	// nil means QueryLogReader(Client).
	Log LogReader
}

// modelLogPageSize keeps each query answer well under gRPC message limits
// even when events carry large tool arguments.
const modelLogPageSize = 500

// ModelTurn reads the conversation window from the session's own log and asks
// the model for the next assistant message.
func (m *Models) ModelTurn(ctx context.Context, in ModelTurnInput) (ModelTurnOutput, error) {
	model := in.Model
	if model == "" {
		model = m.Config.DefaultModel
	}
	if model == "" {
		return ModelTurnOutput{}, temporal.NewNonRetryableApplicationError(
			"no chat model configured: name one in the session input or set AGENT_MODEL", ErrTypeModelNotConfigured, nil)
	}
	events, err := m.window(ctx, in)
	if err != nil {
		return ModelTurnOutput{}, err
	}
	system := in.SystemPrompt
	if system == "" {
		system = DefaultSystemPrompt
	}
	msgs := sessionlog.Messages(system, events)
	defer keepAlive(ctx)()
	if model == ScriptedModel {
		return scriptedTurn(ctx, in, msgs)
	}
	return m.openAITurn(ctx, model, in.UpToSeq, msgs)
}

// window reads events FromSeq..UpToSeq, page by page, from the run that
// scheduled this activity: after continue-as-new, that run still answers for
// the conversation it asked about.
func (m *Models) window(ctx context.Context, in ModelTurnInput) ([]sessionlog.Event, error) {
	if in.UpToSeq < in.FromSeq || in.UpToSeq < 1 {
		return nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("model turn: empty conversation window (fromSeq %d, upToSeq %d)", in.FromSeq, in.UpToSeq),
			ErrTypeInvalidModelTurn, nil)
	}
	read := m.Log
	if read == nil {
		if m.Client == nil {
			return nil, temporal.NewNonRetryableApplicationError(
				"model turn: no Temporal client to read the session log with", ErrTypeSessionLogUnavailable, nil)
		}
		read = QueryLogReader(m.Client)
	}
	run := activity.GetInfo(ctx).WorkflowExecution
	var events []sessionlog.Event
	after := in.FromSeq - 1
	for {
		page, err := read(ctx, run.ID, run.RunID, sessionlog.PageRequest{AfterSeq: after, Limit: modelLogPageSize})
		if err != nil {
			return nil, err
		}
		for _, e := range page {
			if e.Seq <= after {
				// Paging on would loop forever or repeat events.
				return nil, fmt.Errorf("model turn: session log page after seq %d returned seq %d", after, e.Seq)
			}
			if e.Seq > in.UpToSeq {
				return events, nil
			}
			events = append(events, e)
			after = e.Seq
		}
		// A page may be shorter than asked for (the query bounds its
		// bytes); only an empty one says there is nothing more.
		if len(page) == 0 || after >= in.UpToSeq {
			return events, nil
		}
	}
}
