// Package chattest is a local server that speaks the OpenAI Chat Completions
// protocol, as httptest is for HTTP: it records every request and answers
// with what the test decides. The activity tests, the session tests and the
// worker's end-to-end tests all talk to it instead of a provider.
package chattest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Server is the local endpoint; its URL plus "/v1" is a base URL for the
// OpenAI client.
type Server struct {
	*httptest.Server
	key string

	mu       sync.Mutex
	header   http.Header
	requests []Request
	answer   func(n int, req Request) (status int, body any)
}

// Request is one request as the server received it.
type Request struct {
	// Ctx ends when the caller hangs up, so an answer that takes its time
	// (a slow model) can tell an abandoned request from an answered one.
	Ctx                context.Context `json:"-"`
	Method, Path, Auth string
	// Raw is the body as JSON values, for assertions on the exact wire format.
	Raw      map[string]any
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	Tools    []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

// Message is one message of a request.
type Message struct {
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
func (m Message) Text() string {
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

// NewServer answers request n (from 0) with answer's status and body: a
// string body is written as it is, anything else as JSON. key, when not
// empty, is the API key a request must carry; others get the 401 a provider
// sends for a bad key.
func NewServer(t testing.TB, key string, answer func(n int, req Request) (status int, body any)) *Server {
	s := &Server{key: key, answer: answer, header: http.Header{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve(t)))
	t.Cleanup(s.Close)
	return s
}

func (s *Server) serve(t testing.TB) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		if s.key != "" && r.Header.Get("Authorization") != "Bearer "+s.key {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		req := Request{Ctx: r.Context(), Method: r.Method, Path: r.URL.Path, Auth: r.Header.Get("Authorization")}
		if err := json.Unmarshal(raw, &req); err != nil || json.Unmarshal(raw, &req.Raw) != nil {
			t.Errorf("request body is not JSON: %v: %s", err, raw)
		}
		s.mu.Lock()
		n := len(s.requests)
		s.requests = append(s.requests, req)
		for k, v := range s.header {
			w.Header()[k] = v
		}
		s.mu.Unlock()
		status, body := s.answer(n, req)
		text, isText := body.(string)
		if !isText {
			b, _ := json.Marshal(body)
			text = string(b)
		}
		if strings.HasPrefix(text, "{") {
			w.Header().Set("Content-Type", "application/json")
		} else {
			w.Header().Set("Content-Type", "text/html")
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, text)
	}
}

// SetHeader adds a header to every later response (Retry-After, say).
func (s *Server) SetHeader(key, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.header.Set(key, value)
}

// Request returns request n (from 0).
func (s *Server) Request(n int) Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[n]
}

// Count is how many requests arrived.
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}
