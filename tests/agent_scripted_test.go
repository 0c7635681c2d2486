package tests

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/workflows"
)

func loadScript(t testing.TB, path string) []sessionlog.AssistantData {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Turns []sessionlog.AssistantData `json:"turns"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return s.Turns
}

// waitForAnswer waits until the session's last event closes a prompt: an
// assistant message without tool calls, or a failed turn.
func (h *harness) waitForAnswer(id string, prompts int) []sessionlog.Event {
	h.t.Helper()
	var log []sessionlog.Event
	sessiontest.WaitFor(h.t, 30*time.Second, "the answer", func() bool {
		log = h.on(id).Log()
		done := 0
		for _, e := range log {
			switch e.Type {
			case sessionlog.TurnFailed:
				done++
			case sessionlog.AssistantMessage:
				var a sessionlog.AssistantData
				_ = json.Unmarshal(e.Data, &a)
				if len(a.ToolCalls) == 0 {
					done++
				}
			}
		}
		return done >= prompts
	})
	return log
}

func TestScriptedAgentRunsThePlanToTheEnd(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	id := "scripted-agent"
	h.start(id, workflows.SessionInput{
		Model:  "scripted",
		Script: loadScript(t, "../examples/plan-and-build.json"),
		Prompt: "Add a --json flag to the report command",
	})
	log := h.waitForAnswer(id, 1)

	st := h.on(id).Todos()
	if st.Counts != (todo.Counts{Completed: 5}) {
		t.Fatalf("final plan %+v", st)
	}
	hist := h.on(id).History()
	if len(hist) != 6 {
		t.Fatalf("%d accepted writes, want 6", len(hist))
	}
	for _, s := range hist {
		if s.Source.Kind != todo.SourceModel || s.Source.ID == "" {
			t.Fatalf("snapshot source %+v", s.Source)
		}
	}

	// The log tells the whole session in order, including the rejected write
	// and the exact tool result the model saw for it.
	var types []sessionlog.Type
	var results []string
	for _, e := range log {
		types = append(types, e.Type)
		if e.Type == sessionlog.ToolResult {
			var r sessionlog.ToolResultData
			_ = json.Unmarshal(e.Data, &r)
			results = append(results, r.Content)
		}
		if e.Seq <= 0 {
			t.Fatalf("event without seq: %+v", e)
		}
	}
	if types[0] != sessionlog.UserMessage || types[1] != sessionlog.AssistantMessage || types[2] != sessionlog.ToolCall || types[len(types)-1] != sessionlog.AssistantMessage {
		t.Fatalf("event order %v", types)
	}
	wantResults := []string{
		"Updated todo list: 3 pending, 1 in progress, 0 completed.",
		"Updated todo list: 2 pending, 1 in progress, 1 completed.",
		`Error: invalid todos: duplicate content "Cover --json with a golden-file test"`,
		"Updated todo list: 3 pending, 1 in progress, 1 completed.",
		"Updated todo list: 1 pending, 2 in progress, 2 completed.",
		"Updated todo list: 0 pending, 1 in progress, 4 completed.",
		"Updated todo list: 0 pending, 0 in progress, 5 completed.",
	}
	if len(results) != len(wantResults) {
		t.Fatalf("tool results %q", results)
	}
	for i := range wantResults {
		if results[i] != wantResults[i] {
			t.Errorf("tool result %d: %q, want %q", i, results[i], wantResults[i])
		}
	}
	h.replay(id)
}
