package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/payloads"
	"github.com/durabletodos/agenttodos/tools"
)

// toolJSON is a tool definition with the field names model APIs use.
type toolJSON struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

func (a *app) schemaCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the todo_write tool definition the model sees",
		// From the same tools.Definitions() the model is offered, so the
		// two cannot disagree.
		Args: positional(false),
		RunE: func(*cobra.Command, []string) error {
			def, err := todoWriteDefinition()
			if err != nil {
				return err
			}
			var text bytes.Buffer
			if err := json.Indent(&text, def, "", "  "); err != nil {
				return err
			}
			return a.out.result(text.String()+"\n", def)
		},
	}
}

// todoWriteDefinition is the todo_write definition as JSON, without HTML
// escaping: its description is prose with quotes and code.
func todoWriteDefinition() (json.RawMessage, error) {
	for _, d := range tools.Definitions() {
		if d.Name == contract.ToolTodoWrite {
			return payloads.Marshal(toolJSON{Name: d.Name, Description: d.Description, Parameters: d.Parameters})
		}
	}
	return nil, fmt.Errorf("no %s tool among tools.Definitions()", contract.ToolTodoWrite)
}
