package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// slowChatServer is an OpenAI Chat Completions endpoint on loopback that
// takes its time, like a reasoning model: each request is answered with
// content after delay, unless the caller hangs up first. It records which
// of the two happened, so a test can tell an answered turn from an
// abandoned one.
type slowChatServer struct {
	*httptest.Server
	delay   time.Duration
	content string
	arrived chan struct{} // closed when the first request comes in

	mu        sync.Mutex
	requests  int
	answered  int
	abandoned int
	finished  chan struct{} // closed when the first request is answered or abandoned
}

const chatAPIKey = "test-key"

func newSlowChatServer(t *testing.T, delay time.Duration, content string) *slowChatServer {
	cs := &slowChatServer{delay: delay, content: content, arrived: make(chan struct{}), finished: make(chan struct{})}
	cs.Server = httptest.NewServer(http.HandlerFunc(cs.serve))
	t.Cleanup(cs.Close)
	return cs
}

// env points a worker at this server.
func (cs *slowChatServer) env() []string {
	return []string{"OPENAI_BASE_URL=" + cs.URL + "/v1", "OPENAI_API_KEY=" + chatAPIKey, "AGENT_MODEL=test-model"}
}

func (cs *slowChatServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") ||
		r.Header.Get("Authorization") != "Bearer "+chatAPIKey {
		http.Error(w, `{"error":{"message":"unexpected request"}}`, http.StatusBadRequest)
		return
	}
	// Reading the whole body lets the server watch the connection, so a
	// caller that hangs up cancels r.Context().
	if _, err := io.Copy(io.Discard, r.Body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	cs.mu.Lock()
	cs.requests++
	first := cs.requests == 1
	cs.mu.Unlock()
	if first {
		close(cs.arrived)
	}

	select {
	case <-time.After(cs.delay):
	case <-r.Context().Done():
		cs.record(first, false)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	err := json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-slow", "object": "chat.completion", "created": 1764450000, "model": "test-model",
		"choices": []any{map[string]any{
			"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": cs.content},
		}},
	})
	if f, ok := w.(http.Flusher); ok && err == nil {
		f.Flush()
	}
	cs.record(first, err == nil && r.Context().Err() == nil)
}

func (cs *slowChatServer) record(first, answered bool) {
	cs.mu.Lock()
	if answered {
		cs.answered++
	} else {
		cs.abandoned++
	}
	cs.mu.Unlock()
	if first {
		close(cs.finished)
	}
}

// counts reports requests received, answered and abandoned so far.
func (cs *slowChatServer) counts() (requests, answered, abandoned int) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.requests, cs.answered, cs.abandoned
}
