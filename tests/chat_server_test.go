package tests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/durabletodos/agenttodos/activities"
	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/tests/chattest"
)

// chatKey is the API key the sessions' model endpoint accepts.
const chatKey = "test-key"

// newChatServer is a Chat Completions endpoint on loopback that accepts
// chatKey; answer decides each response from the request the worker sent.
func newChatServer(t testing.TB, answer func(n int, req chattest.Request) (int, any)) *chattest.Server {
	return chattest.NewServer(t, chatKey, answer)
}

// chatConfig points ModelTurn at cs with the given API key.
func chatConfig(cs *chattest.Server, key string) activities.ModelConfig {
	return activities.ModelConfig{BaseURL: cs.URL + "/v1", APIKey: key, DefaultModel: "test-model"}
}

// completion is a model answer whose tool calls are todo_write calls, the
// i-th named call_<label>_<i>.
func completion(content string, calls ...[2]string) map[string]any {
	var cc []chattest.Call
	for i, c := range calls {
		cc = append(cc, chattest.Call{ID: fmt.Sprintf("call_%s_%d", strings.ReplaceAll(c[0], " ", "_"), i), Name: contract.ToolTodoWrite, Arguments: c[1]})
	}
	return chattest.Completion(content, cc...)
}

func todoCall(label, args string) [2]string { return [2]string{label, args} }
