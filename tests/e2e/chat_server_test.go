package e2e

import (
	"sync"
	"testing"
	"time"

	"github.com/durabletodos/agenttodos/tests/chattest"
)

// slowChatServer is a Chat Completions endpoint on loopback that takes its
// time, like a reasoning model: each request is answered after delay,
// unless the caller hangs up first. It records which of the two happened,
// so a test can tell an answered turn from an abandoned one.
type slowChatServer struct {
	*chattest.Server
	arrived chan struct{} // closed when the first request comes in

	mu                  sync.Mutex
	answered, abandoned int
	finished            chan struct{} // closed when the first request is answered or abandoned
}

const chatAPIKey = "test-key"

func newSlowChatServer(t *testing.T, delay time.Duration, content string) *slowChatServer {
	cs := &slowChatServer{arrived: make(chan struct{}), finished: make(chan struct{})}
	cs.Server = chattest.NewServer(t, chatAPIKey, func(n int, req chattest.Request) (int, any) {
		if n == 0 {
			close(cs.arrived)
		}
		select {
		case <-time.After(delay):
			cs.record(n == 0, true)
		case <-req.Ctx.Done():
			cs.record(n == 0, false)
		}
		return 200, chattest.Completion(content)
	})
	return cs
}

// env points a worker at this server.
func (cs *slowChatServer) env() []string {
	return []string{"OPENAI_BASE_URL=" + cs.URL + "/v1", "OPENAI_API_KEY=" + chatAPIKey, "AGENT_MODEL=test-model"}
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
	return cs.Count(), cs.answered, cs.abandoned
}
