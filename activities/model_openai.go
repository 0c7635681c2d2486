package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
	"go.temporal.io/sdk/temporal"

	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/tools"
)

// openAITurn sends the conversation to an OpenAI-compatible Chat Completions
// endpoint. The SDK does not retry: Temporal's retry policy owns retries, so
// they show in the workflow's history and survive a worker restart.
func (m *Models) openAITurn(ctx context.Context, model string, upToSeq int64, msgs []sessionlog.Message) (ModelTurnOutput, error) {
	params, err := chatParams(model, msgs)
	if err != nil {
		return ModelTurnOutput{}, temporal.NewNonRetryableApplicationError(
			"model request: "+err.Error(), ErrTypeModelRequestRejected, nil)
	}
	opts := []option.RequestOption{option.WithMaxRetries(0)}
	if m.Config.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(m.Config.BaseURL))
	}
	if m.Config.APIKey != "" {
		opts = append(opts, option.WithAPIKey(m.Config.APIKey))
	}
	if m.Config.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(m.Config.HTTPClient))
	}
	if m.Config.Timeout > 0 {
		opts = append(opts, option.WithRequestTimeout(m.Config.Timeout))
	}
	c := openai.NewClient(opts...)

	// The raw response keeps the status and Retry-After even when the error
	// body is not the JSON the SDK expects (a proxy's HTML 502, say).
	var res *http.Response
	completion, err := c.Chat.Completions.New(ctx, params, option.WithResponseInto(&res))
	if err != nil {
		return ModelTurnOutput{}, modelError(ctx, err, res, m.Config.APIKey)
	}
	if len(completion.Choices) == 0 {
		return ModelTurnOutput{}, temporal.NewApplicationError(
			"model unavailable: the response has no choices", ErrTypeModelUnavailable)
	}
	choice := completion.Choices[0]
	out := ModelTurnOutput{FinishReason: choice.FinishReason, Requested: len(msgs)}
	out.Message.Content = choice.Message.Content
	if out.Message.Content == "" {
		// A refusal is the model's answer to the user; dropping it would
		// leave an empty turn the user cannot make sense of.
		out.Message.Content = choice.Message.Refusal
	}
	for i, tc := range choice.Message.ToolCalls {
		call := sessionlog.Call{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments}
		if tc.Type == "custom" {
			call.Name, call.Arguments = tc.Custom.Name, tc.Custom.Input
		}
		if call.ID == "" {
			// Some compatible servers omit IDs; without one the result could
			// not be paired with its call. The window's end seq is unique per
			// turn, so the ID is unique in the session.
			call.ID = "call_" + strconv.FormatInt(upToSeq, 10) + "_" + strconv.Itoa(i)
		}
		out.Message.ToolCalls = append(out.Message.ToolCalls, call)
	}
	return out, nil
}

func chatParams(model string, msgs []sessionlog.Message) (openai.ChatCompletionNewParams, error) {
	params := openai.ChatCompletionNewParams{
		Model:      shared.ChatModel(model),
		Messages:   make([]openai.ChatCompletionMessageParamUnion, 0, len(msgs)),
		ToolChoice: openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String(string(openai.ChatCompletionToolChoiceOptionAutoAuto))},
	}
	for _, d := range tools.Definitions() {
		var schema map[string]any
		if err := json.Unmarshal(d.Parameters, &schema); err != nil {
			return params, fmt.Errorf("tool %s: invalid parameters schema: %w", d.Name, err)
		}
		params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        d.Name,
			Description: openai.String(d.Description),
			Parameters:  shared.FunctionParameters(schema),
		}))
	}
	for _, msg := range msgs {
		switch msg.Role {
		case sessionlog.RoleSystem:
			params.Messages = append(params.Messages, openai.SystemMessage(msg.Content))
		case sessionlog.RoleUser:
			params.Messages = append(params.Messages, openai.UserMessage(msg.Content))
		case sessionlog.RoleTool:
			params.Messages = append(params.Messages, openai.ToolMessage(msg.Content, msg.ToolCallID))
		case sessionlog.RoleAssistant:
			var a openai.ChatCompletionAssistantMessageParam
			// Content may be omitted only when there are tool calls.
			if msg.Content != "" || len(msg.ToolCalls) == 0 {
				a.Content.OfString = openai.String(msg.Content)
			}
			for _, call := range msg.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID: call.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{
							Name:      call.Name,
							Arguments: call.Arguments,
						},
					},
				})
			}
			params.Messages = append(params.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		}
	}
	return params, nil
}

// modelError sorts a failed request into what Temporal should retry: rate
// limits, timeouts, conflicts, server errors and broken connections pass;
// any other 4xx says the request itself is wrong (key, model, payload).
// The failure is kept in history and shown in the UI, so the API key is cut
// out of it: a provider or a proxy may quote the key it refused.
func modelError(ctx context.Context, err error, res *http.Response, apiKey string) error {
	if ctx.Err() != nil {
		// The activity was cancelled or timed out: Temporal already knows.
		return ctx.Err()
	}
	status, detail := 0, ""
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		status, detail = apiErr.StatusCode, apiErr.Message
		if apiErr.Response != nil {
			res = apiErr.Response
		}
	} else if res != nil && res.StatusCode >= 400 {
		status = res.StatusCode
	}
	if status == 0 {
		return temporal.NewApplicationError("model unavailable: "+redactKey(err.Error(), apiKey), ErrTypeModelUnavailable)
	}
	if detail == "" {
		detail = modelErrorBody(res)
	}
	desc := strconv.Itoa(status)
	if text := http.StatusText(status); text != "" {
		desc += " " + text
	}
	if detail != "" {
		desc += ": " + redactKey(detail, apiKey)
	}
	switch {
	case status == http.StatusRequestTimeout, status == http.StatusConflict,
		status == http.StatusTooManyRequests, status >= 500:
		return temporal.NewApplicationErrorWithOptions("model unavailable: "+desc, ErrTypeModelUnavailable,
			temporal.ApplicationErrorOptions{NextRetryDelay: modelRetryAfter(res, time.Now())})
	}
	return temporal.NewNonRetryableApplicationError("model request rejected: "+desc, ErrTypeModelRequestRejected, nil)
}

// modelErrorBodyLimit keeps a proxy's whole HTML page out of the failure.
const modelErrorBodyLimit = 300

// modelErrorBody is the start of an error body that is not the provider's
// JSON error, so the failure still says something.
func modelErrorBody(res *http.Response) string {
	if res == nil || res.Body == nil {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(res.Body, modelErrorBodyLimit))
	return strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "")), " ")
}

// modelMaxRetryAfter caps a server's requested wait, so a bogus header cannot
// park a session for hours.
const modelMaxRetryAfter = 5 * time.Minute

// modelRetryAfter reads the wait a server asks for (Retry-After-Ms, then
// Retry-After in seconds or as an HTTP date); zero leaves the delay to the
// activity's retry policy.
func modelRetryAfter(res *http.Response, now time.Time) time.Duration {
	if res == nil {
		return 0
	}
	var d time.Duration
	if v := res.Header.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			d = time.Duration(ms * float64(time.Millisecond))
		}
	}
	if v := res.Header.Get("Retry-After"); d == 0 && v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
			d = time.Duration(s * float64(time.Second))
		} else if t, err := http.ParseTime(v); err == nil {
			d = t.Sub(now)
		}
	}
	if d <= 0 {
		return 0
	}
	return min(d, modelMaxRetryAfter)
}

// redactKey cuts the API key out of a text.
func redactKey(text, apiKey string) string {
	if len(apiKey) < 8 {
		// Too short to be a real key, and replacing it could mangle the text.
		return text
	}
	return strings.ReplaceAll(text, apiKey, "[redacted]")
}
