package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"github.com/durabletodos/agenttodos/sessionlog"
)

// loadScript reads the scripted model's assistant turns from a file.
func loadScript(path string) ([]sessionlog.AssistantData, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	turns, err := parseScript(b)
	if err != nil {
		return nil, fmt.Errorf("script %s: %w", path, err)
	}
	return turns, nil
}

// scriptCall is a tool call as a script author writes it. Arguments may be
// the JSON object itself or, as the model sends it, a string holding JSON.
type scriptCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type scriptTurn struct {
	Content   string       `json:"content"`
	ToolCalls []scriptCall `json:"toolCalls"`
}

// parseScript accepts a JSON array of assistant turns or {"turns":[...]}
// (other keys of that object, such as a "description", are the author's
// notes). Unknown keys inside a turn are errors: a misspelt "tool_calls"
// would otherwise turn a tool call into a silent final answer.
func parseScript(b []byte) ([]sessionlog.AssistantData, error) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '{' {
		var wrapped map[string]json.RawMessage
		if err := json.Unmarshal(b, &wrapped); err != nil {
			return nil, err
		}
		inner, ok := wrapped["turns"]
		if !ok {
			return nil, fmt.Errorf(`want a JSON array of assistant turns or {"turns":[...]}`)
		}
		b = inner
	}
	var turns []scriptTurn
	if err := strictUnmarshal(b, &turns); err != nil {
		return nil, err
	}
	out := make([]sessionlog.AssistantData, 0, len(turns))
	for i, t := range turns {
		d := sessionlog.AssistantData{Content: t.Content}
		for j, c := range t.ToolCalls {
			call := sessionlog.Call{ID: c.ID, Name: c.Name, Arguments: scriptArguments(c.Arguments)}
			if call.ID == "" {
				// Tool results and todo/write sources are keyed by call ID.
				call.ID = "call_" + strconv.Itoa(i+1) + "_" + strconv.Itoa(j+1)
			}
			if call.Name == "" {
				return nil, fmt.Errorf("turn %d, tool call %d: missing name", i+1, j+1)
			}
			d.ToolCalls = append(d.ToolCalls, call)
		}
		out = append(out, d)
	}
	return out, nil
}

// scriptArguments gives the arguments as the model would send them: a JSON
// string is unwrapped (it may hold deliberately malformed JSON), an object is
// compacted, as models emit it.
func scriptArguments(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		return b.String()
	}
	return string(raw)
}

func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("unexpected data after the script")
	}
	return nil
}
