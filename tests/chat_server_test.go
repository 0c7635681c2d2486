package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/durabletodos/agenttodos/activities"
)

// chatServer speaks the OpenAI Chat Completions protocol on loopback; answer
// decides each response from the request the worker actually sent.
type chatServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []chatRequest
	answer   func(n int, req chatRequest) (status int, body any)
}

type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
	Tools    []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// Text is the message's content whether it came as a string or as parts.
func (m chatMessage) Text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func newChatServer(t testing.TB, answer func(n int, req chatRequest) (int, any)) *chatServer {
	cs := &chatServer{answer: answer}
	cs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer test-key" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`)
			return
		}
		var req chatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		cs.mu.Lock()
		n := len(cs.requests)
		cs.requests = append(cs.requests, req)
		cs.mu.Unlock()
		status, body := cs.answer(n, req)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(cs.Close)
	return cs
}

func (cs *chatServer) config(key string) activities.ModelConfig {
	return activities.ModelConfig{BaseURL: cs.URL + "/v1", APIKey: key, DefaultModel: "test-model"}
}

func (cs *chatServer) request(n int) chatRequest {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.requests[n]
}

func (cs *chatServer) count() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return len(cs.requests)
}

// completion is a Chat Completions response body.
func completion(content string, calls ...[2]string) map[string]any {
	msg := map[string]any{"role": "assistant", "content": content}
	finish := "stop"
	if len(calls) > 0 {
		var tc []map[string]any
		for i, c := range calls {
			tc = append(tc, map[string]any{
				"id": fmt.Sprintf("call_%s_%d", strings.ReplaceAll(c[0], " ", "_"), i), "type": "function",
				"function": map[string]any{"name": "todo_write", "arguments": c[1]},
			})
		}
		msg["tool_calls"] = tc
		finish = "tool_calls"
	}
	return map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "created": 1764450000, "model": "test-model",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	}
}

func todoCall(label, args string) [2]string { return [2]string{label, args} }

func rateLimited() map[string]any {
	return map[string]any{"error": map[string]any{"message": "Rate limit reached", "type": "rate_limit_exceeded"}}
}
