package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/tests/chattest"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/tools"
)

// modelFakeLog is a session log served the way the session_log query pages it.
type modelFakeLog struct {
	mu     sync.Mutex
	events []sessionlog.Event
	calls  []sessionlog.PageRequest
	runs   []string
}

func (l *modelFakeLog) read(_ context.Context, workflowID, runID string, req sessionlog.PageRequest) ([]sessionlog.Event, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, req)
	l.runs = append(l.runs, workflowID+"/"+runID)
	page := sessionlog.Page(l.events, sessionlog.EventSeq, sessionlog.EventBytes, req)
	return append([]sessionlog.Event(nil), page...), nil
}

func modelEvents(t *testing.T, pairs ...any) []sessionlog.Event {
	t.Helper()
	var out []sessionlog.Event
	for i := 0; i < len(pairs); i += 2 {
		data, err := json.Marshal(pairs[i+1])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, sessionlog.Event{Seq: int64(len(out) + 1), Type: pairs[i].(sessionlog.Type), At: time.Unix(1, 0).UTC(), Data: data})
	}
	return out
}

// newModelFakeServer answers every request with the same status and body.
func newModelFakeServer(t *testing.T, status int, body any) *chattest.Server {
	return chattest.NewServer(t, "", func(int, chattest.Request) (int, any) { return status, body })
}

// modelCall is a tool call of a completion.
func modelCall(id, name, args string) chattest.Call {
	return chattest.Call{ID: id, Name: name, Arguments: args}
}

type modelHarness struct {
	env    *testsuite.TestActivityEnvironment
	models *Models
	log    *modelFakeLog
}

func newModelHarness(t *testing.T, srv *chattest.Server, events []sessionlog.Event) *modelHarness {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	log := &modelFakeLog{events: events}
	m := &Models{Log: log.read}
	if srv != nil {
		m.Config = ModelConfig{BaseURL: srv.URL, APIKey: "test-key", DefaultModel: "gpt-test", HTTPClient: srv.Client()}
	}
	env.RegisterActivity(m)
	return &modelHarness{env: env, models: m, log: log}
}

func (h *modelHarness) run(in ModelTurnInput) (ModelTurnOutput, error) {
	v, err := h.env.ExecuteActivity(h.models.ModelTurn, in)
	if err != nil {
		return ModelTurnOutput{}, err
	}
	var out ModelTurnOutput
	if err := v.Get(&out); err != nil {
		return ModelTurnOutput{}, err
	}
	return out, nil
}

func modelAppError(t *testing.T, err error) *temporal.ApplicationError {
	t.Helper()
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) {
		t.Fatalf("error %v (%T) is not an ApplicationError", err, err)
	}
	return appErr
}

var modelPlan = []todo.Item{{Content: "Run the tests", Status: todo.InProgress}, {Content: "Fix <the> bug", Status: todo.Pending}}

func TestModelTurnSendsTheConversationAndReturnsToolCalls(t *testing.T) {
	args := `{"todos":[{"content":"Run the tests","status":"completed"},{"content":"Fix <the> bug","status":"in_progress"}]}`
	srv := newModelFakeServer(t, 200, chattest.Completion(nil, modelCall("call_xyz", contract.ToolTodoWrite, args)))
	first := sessionlog.Call{ID: "call_1", Name: contract.ToolTodoWrite, Arguments: `{"todos":[{"content":"Run the tests","status":"in_progress"}]}`}
	events := modelEvents(t,
		sessionlog.UserMessage, sessionlog.MessageData{Text: "Fix the build"},
		sessionlog.AssistantMessage, sessionlog.AssistantData{ToolCalls: []sessionlog.Call{first}},
		sessionlog.ToolCall, first,
		sessionlog.TodoWrite, sessionlog.TodoWriteData{Todos: modelPlan[:1]},
		sessionlog.ToolResult, sessionlog.ToolResultData{ToolCallID: "call_1", Name: contract.ToolTodoWrite, Content: "Updated todo list: 0 pending, 1 in progress, 0 completed."},
		sessionlog.TodoReminder, sessionlog.TodoReminderData{Reason: sessionlog.ReminderChangedOutside, Todos: modelPlan},
		sessionlog.UserMessage, sessionlog.MessageData{Text: "Carry on"},
		sessionlog.UserMessage, sessionlog.MessageData{Text: "after the window: must not be sent"},
	)
	h := newModelHarness(t, srv, events)
	out, err := h.run(ModelTurnInput{Model: "gpt-test", SystemPrompt: "You are a careful agent.", FromSeq: 1, UpToSeq: 7})
	if err != nil {
		t.Fatal(err)
	}
	want := ModelTurnOutput{
		Message:      sessionlog.AssistantData{ToolCalls: []sessionlog.Call{{ID: "call_xyz", Name: contract.ToolTodoWrite, Arguments: args}}},
		FinishReason: "tool_calls",
		Requested:    6,
	}
	if !reflect.DeepEqual(out, want) {
		t.Fatalf("output %+v, want %+v", out, want)
	}

	if got := srv.Request(0); srv.Count() != 1 || got.Method+" "+got.Path != "POST /chat/completions" || got.Auth != "Bearer test-key" {
		t.Fatalf("%d requests, first %s %s auth %q", srv.Count(), got.Method, got.Path, got.Auth)
	}
	req := srv.Request(0).Raw
	if req["model"] != "gpt-test" || req["tool_choice"] != "auto" {
		t.Fatalf("model %v tool_choice %v", req["model"], req["tool_choice"])
	}
	reminder := sessionlog.Reminder(sessionlog.TodoReminderData{Reason: sessionlog.ReminderChangedOutside, Todos: modelPlan})
	// "<the>" could pass for a tag: it reaches the model escaped, the same
	// string to a JSON reader.
	if !strings.Contains(reminder, `"Fix \u003cthe> bug"`) {
		t.Fatalf("reminder does not escape the tag: %s", reminder)
	}
	wantMsgs := []any{
		map[string]any{"role": "system", "content": "You are a careful agent."},
		map[string]any{"role": "user", "content": "Fix the build"},
		map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{
			"id": "call_1", "type": "function",
			"function": map[string]any{"name": contract.ToolTodoWrite, "arguments": first.Arguments},
		}}},
		map[string]any{"role": "tool", "tool_call_id": "call_1", "content": "Updated todo list: 0 pending, 1 in progress, 0 completed."},
		map[string]any{"role": "user", "content": reminder},
		map[string]any{"role": "user", "content": "Carry on"},
	}
	if !reflect.DeepEqual(req["messages"], wantMsgs) {
		got, _ := json.MarshalIndent(req["messages"], "", "  ")
		t.Fatalf("messages sent:\n%s", got)
	}

	var schema any
	if err := json.Unmarshal(tools.Definitions()[0].Parameters, &schema); err != nil {
		t.Fatal(err)
	}
	wantTools := []any{map[string]any{"type": "function", "function": map[string]any{
		"name":        contract.ToolTodoWrite,
		"description": tools.Definitions()[0].Description,
		"parameters":  schema,
	}}}
	if !reflect.DeepEqual(req["tools"], wantTools) {
		got, _ := json.MarshalIndent(req["tools"], "", "  ")
		t.Fatalf("tools sent:\n%s", got)
	}

	// The log was read from this activity's own run, from FromSeq on.
	if len(h.log.calls) != 1 || h.log.calls[0] != (sessionlog.PageRequest{AfterSeq: 0, Limit: 500}) ||
		h.log.runs[0] != "default-test-workflow-id/default-test-run-id" {
		t.Fatalf("log reads %v from %v", h.log.calls, h.log.runs)
	}
}

func TestModelTurnPassesMalformedArgumentsVerbatim(t *testing.T) {
	bad := `{"todos": [{"content": "Run the tests", "status": "in_progress"},]` // trailing comma, unclosed
	srv := newModelFakeServer(t, 200, chattest.Completion("Updating the plan.", modelCall("call_bad", contract.ToolTodoWrite, bad), modelCall("", contract.ToolTodoWrite, "not json")))
	h := newModelHarness(t, srv, modelEvents(t, sessionlog.UserMessage, sessionlog.MessageData{Text: "go"}))
	out, err := h.run(ModelTurnInput{FromSeq: 1, UpToSeq: 1}) // model from the config
	if err != nil {
		t.Fatal(err)
	}
	want := sessionlog.AssistantData{Content: "Updating the plan.", ToolCalls: []sessionlog.Call{
		{ID: "call_bad", Name: contract.ToolTodoWrite, Arguments: bad},
		{ID: "call_1_1", Name: contract.ToolTodoWrite, Arguments: "not json"},
	}}
	// The default system prompt, then the user message.
	if !reflect.DeepEqual(out.Message, want) || out.Requested != 2 {
		t.Fatalf("output %+v", out)
	}
	if srv.Request(0).Raw["model"] != "gpt-test" {
		t.Fatalf("model %v, want the configured default", srv.Request(0).Raw["model"])
	}
}

func TestModelTurnResendsMalformedArgumentsVerbatim(t *testing.T) {
	bad := `{"todos": [oops`
	call := sessionlog.Call{ID: "call_bad", Name: contract.ToolTodoWrite, Arguments: bad}
	srv := newModelFakeServer(t, 200, chattest.Completion("Fixed."))
	h := newModelHarness(t, srv, modelEvents(t,
		sessionlog.UserMessage, sessionlog.MessageData{Text: "go"},
		sessionlog.AssistantMessage, sessionlog.AssistantData{ToolCalls: []sessionlog.Call{call}},
		sessionlog.ToolResult, sessionlog.ToolResultData{ToolCallID: "call_bad", Content: "Error: invalid todos: `todos` must be an array"},
	))
	out, err := h.run(ModelTurnInput{Model: "gpt-test", FromSeq: 1, UpToSeq: 3})
	if err != nil {
		t.Fatal(err)
	}
	if out.Message.Content != "Fixed." || out.FinishReason != "stop" || len(out.Message.ToolCalls) != 0 {
		t.Fatalf("output %+v", out)
	}
	msgs := srv.Request(0).Raw["messages"].([]any)[1:] // after the default system prompt
	fn := msgs[1].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)
	if fn["arguments"] != bad {
		t.Fatalf("arguments resent as %q", fn["arguments"])
	}
	if msgs[2].(map[string]any)["content"] != "Error: invalid todos: `todos` must be an array" {
		t.Fatalf("tool result %v", msgs[2])
	}
}

func TestModelTurnErrors(t *testing.T) {
	events := func(t *testing.T) []sessionlog.Event {
		return modelEvents(t, sessionlog.UserMessage, sessionlog.MessageData{Text: "go"})
	}
	cases := []struct {
		name      string
		status    int
		header    map[string]string
		body      string
		retryable bool
		errType   string
		message   string
		delay     time.Duration
	}{
		{"rate limited", 429, map[string]string{"Retry-After": "7"},
			`{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
			true, ErrTypeModelUnavailable, "model unavailable: 429 Too Many Requests: Rate limit reached for requests", 7 * time.Second},
		{"server error", 500, nil,
			`{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`,
			true, ErrTypeModelUnavailable, "model unavailable: 500 Internal Server Error: The server had an error while processing your request.", 0},
		{"bad gateway html", 502, nil, "<html>\n<body>Bad   gateway</body></html>",
			true, ErrTypeModelUnavailable, "model unavailable: 502 Bad Gateway: <html> <body>Bad gateway</body></html>", 0},
		{"request timeout", 408, nil, `{"error":{"message":"timeout"}}`, true, ErrTypeModelUnavailable, "model unavailable: 408 Request Timeout: timeout", 0},
		{"unauthorized", 401, nil,
			`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			false, ErrTypeModelRequestRejected, "model request rejected: 401 Unauthorized: Incorrect API key provided", 0},
		{"unknown model", 404, nil,
			`{"error":{"message":"The model ` + "`gpt-nope`" + ` does not exist","type":"invalid_request_error","param":null,"code":"model_not_found"}}`,
			false, ErrTypeModelRequestRejected, "model request rejected: 404 Not Found: The model `gpt-nope` does not exist", 0},
		{"bad request text", 400, nil, "bad request",
			false, ErrTypeModelRequestRejected, "model request rejected: 400 Bad Request: bad request", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newModelFakeServer(t, tc.status, tc.body)
			for k, v := range tc.header {
				srv.SetHeader(k, v)
			}
			h := newModelHarness(t, srv, events(t))
			_, err := h.run(ModelTurnInput{Model: "gpt-test", FromSeq: 1, UpToSeq: 1})
			appErr := modelAppError(t, err)
			if appErr.Type() != tc.errType || appErr.NonRetryable() == tc.retryable || appErr.Message() != tc.message {
				t.Fatalf("got type %q nonRetryable %v message %q", appErr.Type(), appErr.NonRetryable(), appErr.Message())
			}
			if appErr.NextRetryDelay() != tc.delay {
				t.Fatalf("next retry delay %v, want %v", appErr.NextRetryDelay(), tc.delay)
			}
			if srv.Count() != 1 {
				t.Fatalf("%d requests: the SDK must not retry on its own", srv.Count())
			}
		})
	}
}

func TestModelTurnTransportErrorIsRetryable(t *testing.T) {
	srv := newModelFakeServer(t, 200, "{}")
	url := srv.URL
	srv.Close() // nothing listens there any more
	h := newModelHarness(t, nil, modelEvents(t, sessionlog.UserMessage, sessionlog.MessageData{Text: "go"}))
	h.models.Config = ModelConfig{BaseURL: url, DefaultModel: "gpt-test"}
	_, err := h.run(ModelTurnInput{FromSeq: 1, UpToSeq: 1})
	appErr := modelAppError(t, err)
	if appErr.Type() != ErrTypeModelUnavailable || appErr.NonRetryable() {
		t.Fatalf("got %v type %q", err, appErr.Type())
	}
}

func TestModelTurnNeedsAModel(t *testing.T) {
	h := newModelHarness(t, nil, modelEvents(t, sessionlog.UserMessage, sessionlog.MessageData{Text: "go"}))
	_, err := h.run(ModelTurnInput{FromSeq: 1, UpToSeq: 1})
	appErr := modelAppError(t, err)
	if appErr.Type() != ErrTypeModelNotConfigured || !appErr.NonRetryable() {
		t.Fatalf("got %v", err)
	}
}

func TestModelTurnRejectsAnEmptyWindow(t *testing.T) {
	h := newModelHarness(t, nil, nil)
	for _, in := range []ModelTurnInput{{Model: ScriptedModel, FromSeq: 5, UpToSeq: 4}, {Model: ScriptedModel}} {
		_, err := h.run(in)
		if appErr := modelAppError(t, err); appErr.Type() != ErrTypeInvalidModelTurn || !appErr.NonRetryable() {
			t.Fatalf("%+v: got %v", in, err)
		}
	}
}

func TestScriptedModelReplaysItsTurn(t *testing.T) {
	var pairs []any
	for i := range 1200 {
		pairs = append(pairs, sessionlog.UserMessage, sessionlog.MessageData{Text: fmt.Sprint("m", i)})
	}
	h := newModelHarness(t, nil, modelEvents(t, pairs...))
	turn := &sessionlog.AssistantData{Content: "ok", ToolCalls: []sessionlog.Call{{ID: "s1", Name: contract.ToolTodoWrite, Arguments: `{"todos":[`}}}
	out, err := h.run(ModelTurnInput{Model: ScriptedModel, SystemPrompt: "sys", FromSeq: 101, UpToSeq: 1150, Scripted: turn})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out.Message, *turn) || out.FinishReason != "tool_calls" || out.Requested != 1+1050 {
		t.Fatalf("output %+v", out)
	}
	// Paged from FromSeq until UpToSeq was reached, not to the end of the log.
	want := []sessionlog.PageRequest{{AfterSeq: 100, Limit: 500}, {AfterSeq: 600, Limit: 500}, {AfterSeq: 1100, Limit: 500}}
	if !reflect.DeepEqual(h.log.calls, want) {
		t.Fatalf("log reads %v", h.log.calls)
	}

	_, err = h.run(ModelTurnInput{Model: ScriptedModel, FromSeq: 1, UpToSeq: 1})
	appErr := modelAppError(t, err)
	if appErr.Type() != ErrTypeScriptExhausted || !appErr.NonRetryable() || appErr.Message() != "scripted model: no assistant turn left in the script" {
		t.Fatalf("got %v", err)
	}
}

func TestModelRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		header http.Header
		want   time.Duration
	}{
		{http.Header{}, 0},
		{http.Header{"Retry-After": {"2"}}, 2 * time.Second},
		{http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{http.Header{"Retry-After-Ms": {"1500"}, "Retry-After": {"9"}}, 1500 * time.Millisecond},
		{http.Header{"Retry-After": {now.Add(30 * time.Second).Format(http.TimeFormat)}}, 30 * time.Second},
		{http.Header{"Retry-After": {"86400"}}, modelMaxRetryAfter},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{"Retry-After": {"-3"}}, 0},
	}
	for _, tc := range cases {
		if got := modelRetryAfter(&http.Response{Header: tc.header}, now); got != tc.want {
			t.Errorf("%v: got %v, want %v", tc.header, got, tc.want)
		}
	}
}
