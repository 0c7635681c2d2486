package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/tools"
)

// toolJSON is a tool definition with the field names model APIs use.
type toolJSON struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

func (a *app) schema(_ context.Context, args []string) error {
	fs := a.commandFlags("schema")
	if _, err := parseCommand(fs, args, nil, false); err != nil {
		return err
	}
	out, err := todoWriteSchemaJSON()
	if err != nil {
		return err
	}
	_, err = a.stdout.Write(out)
	return err
}

// todoWriteSchemaJSON is the todo_write definition, indented, from the same
// tools.Definitions() the model is offered, so the two cannot disagree.
func todoWriteSchemaJSON() ([]byte, error) {
	for _, d := range tools.Definitions() {
		if d.Name != contract.ToolTodoWrite {
			continue
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(toolJSON{Name: d.Name, Description: d.Description, Parameters: d.Parameters}); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	return nil, fmt.Errorf("no %s tool among tools.Definitions()", contract.ToolTodoWrite)
}
