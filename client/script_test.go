package main

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
)

func TestParseScriptForms(t *testing.T) {
	want := []sessionlog.AssistantData{
		{Content: "Planning.", ToolCalls: []sessionlog.Call{{ID: "call_1_1", Name: "todo_write", Arguments: `{"todos":[{"content":"a","status":"pending"}]}`}}},
		{ToolCalls: []sessionlog.Call{{ID: "c2", Name: "todo_write", Arguments: `{"todos": [`}}},
		{Content: "Done."},
	}
	array := `[
		{"content":"Planning.","toolCalls":[{"name":"todo_write","arguments":{"todos": [ {"content":"a","status":"pending"} ]}}]},
		{"toolCalls":[{"id":"c2","name":"todo_write","arguments":"{\"todos\": ["}]},
		{"content":"Done."}
	]`
	for name, text := range map[string]string{"array": array, "object": `{"description":"a demo","turns":` + array + `}`} {
		got, err := parseScript([]byte(text))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: got %+v", name, got)
		}
	}
}

func TestParseScriptRejectsTypos(t *testing.T) {
	cases := map[string]string{
		`[{"content":"x","tool_calls":[]}]`:    "unknown field",
		`{"steps":[]}`:                         "want a JSON array",
		`{"turns":[{"text":"hi"}]}`:            "unknown field",
		`[{"toolCalls":[{"arguments":"{}"}]}]`: "missing name",
		`[] []`:                                "unexpected data",
		`"just a string"`:                      "cannot unmarshal",
	}
	for text, want := range cases {
		if _, err := parseScript([]byte(text)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", text, err, want)
		}
	}
}

func TestTurnWatcherWaitsForTheAnswerToTheLastMessage(t *testing.T) {
	plan := []todo.Item{{Content: "a", Status: todo.InProgress}}
	var w turnWatcher
	w.add([]sessionlog.Event{
		event(1, sessionlog.UserMessage, sessionlog.MessageData{Text: "go"}),
		event(2, sessionlog.AssistantMessage, sessionlog.AssistantData{ToolCalls: []sessionlog.Call{{ID: "c1", Name: "todo_write"}}}),
		event(3, sessionlog.ToolCall, sessionlog.Call{ID: "c1", Name: "todo_write"}),
		event(4, sessionlog.TodoWrite, sessionlog.TodoWriteData{Todos: plan}),
	})
	if w.finished() || !w.planSeen || w.plan.Seq != 4 || w.plan.Counts.InProgress != 1 || w.after != 4 {
		t.Fatalf("after a tool call: %+v", w)
	}
	w.add([]sessionlog.Event{
		event(5, sessionlog.AssistantMessage, sessionlog.AssistantData{Content: "first answer"}),
		event(6, sessionlog.UserMessage, sessionlog.MessageData{Text: "and also"}),
	})
	if w.finished() {
		t.Fatalf("finished although a newer message waits: %+v", w)
	}
	w.add([]sessionlog.Event{event(7, sessionlog.AssistantMessage, sessionlog.AssistantData{Content: "second answer"})})
	if !w.finished() || w.failed || w.answer != "second answer" {
		t.Fatalf("%+v", w)
	}

	var f turnWatcher
	f.add([]sessionlog.Event{
		event(1, sessionlog.UserMessage, sessionlog.MessageData{Text: "go"}),
		event(2, sessionlog.TurnFailed, sessionlog.MessageData{Text: "agent stopped after 25 model turns without a final answer"}),
	})
	if !f.finished() || !f.failed || f.failure != "agent stopped after 25 model turns without a final answer" {
		t.Fatalf("%+v", f)
	}
	// A page that repeats seen events changes nothing.
	f.add([]sessionlog.Event{event(1, sessionlog.UserMessage, sessionlog.MessageData{Text: "go"})})
	if !f.finished() {
		t.Fatalf("replayed event reset the watcher: %+v", f)
	}
}

// The example the worker's banner suggests must load.
func TestExampleScriptsLoad(t *testing.T) {
	files, _ := filepath.Glob("../examples/*.json")
	for _, f := range files {
		turns, err := loadScript(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
		} else if len(turns) == 0 {
			t.Errorf("%s: no turns", f)
		}
	}
}
