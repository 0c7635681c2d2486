package chattest

// Call is one tool call of a completion.
type Call struct {
	ID, Name, Arguments string
}

// Completion is a Chat Completions response body with the given content
// (a string, or nil) and tool calls; finish is "tool_calls" when there are
// calls, else "stop".
func Completion(content any, calls ...Call) map[string]any {
	msg := map[string]any{"role": "assistant", "content": content, "refusal": nil}
	finish := "stop"
	if len(calls) > 0 {
		var tc []map[string]any
		for _, c := range calls {
			tc = append(tc, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
		}
		msg["tool_calls"] = tc
		finish = "tool_calls"
	}
	return map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "created": 1764450000, "model": "test-model",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	}
}

// RateLimited is the body of a provider's 429.
func RateLimited() map[string]any {
	return map[string]any{"error": map[string]any{"message": "Rate limit reached", "type": "rate_limit_exceeded"}}
}
