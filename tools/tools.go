// Package tools holds the tool definitions offered to the chat model, in one
// place, so the request the model sees and the documentation cannot drift
// apart between providers or call sites.
package tools

import (
	"bytes"
	"encoding/json"

	"github.com/durabletodos/agenttodos/contract"
)

// Definition is one tool as the model sees it, provider-neutral: Parameters is
// a JSON Schema object.
type Definition struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// todoWriteDescription adapts the reference tool's model-facing text. It
// insists on sending the whole list because a model that sends only the
// changed items silently deletes the rest of its plan.
const todoWriteDescription = `Create or update your todo list: the whole plan for the current work, replaced wholesale on every call.

Each call REPLACES the previous list. Always send the ENTIRE list, including the items that did not change: there are no partial updates or per-item edits, an item you leave out is removed, and an empty list clears the plan.

Each item has only two fields:
- content: a short, non-empty description of one task, unique within the list.
- status: "pending" (not started yet), "in_progress" (being worked on now) or "completed" (finished).
Any number of items may be in_progress at once, when tasks genuinely run in parallel.

Use it for work with several steps: write the plan before you start, mark an item in_progress when you begin it and completed as soon as it is done, add tasks as you discover them and remove the ones that no longer apply. Keep the list current: it is the durable record of your plan that people and other programs watch. If someone changes it from outside, you will be shown the new list; continue from that one.

The result is "Updated todo list: <n> pending, <n> in progress, <n> completed." on success, or "Error: ..." saying what to fix; a rejected list is not applied.`

// todoWriteParameters mirrors the strict validation of todo.Parse, so a
// provider that enforces the schema and one that does not reject the same
// lists; additionalProperties is false at both levels for that reason.
const todoWriteParameters = `{
	"type": "object",
	"properties": {
		"todos": {
			"type": "array",
			"description": "The ENTIRE todo list; it replaces the previous one.",
			"items": {
				"type": "object",
				"properties": {
					"content": {
						"type": "string",
						"minLength": 1,
						"description": "What the task is, in a short sentence; unique within the list."
					},
					"status": {
						"type": "string",
						"enum": ["pending", "in_progress", "completed"],
						"description": "pending, in_progress or completed."
					}
				},
				"required": ["content", "status"],
				"additionalProperties": false
			}
		}
	},
	"required": ["todos"],
	"additionalProperties": false
}`

// todoWriteSchema is the schema without the indentation, which only costs
// request bytes once it leaves this file.
var todoWriteSchema = compactJSON(todoWriteParameters)

func compactJSON(s string) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		panic("tools: invalid JSON schema: " + err.Error())
	}
	return b.Bytes()
}

// Definitions returns the tools offered to the model, in a stable order so
// the request prefix (and a provider's prompt cache) stays the same between
// turns. Each call returns fresh copies, so a caller that edits one cannot
// change what every later request sends.
func Definitions() []Definition {
	return []Definition{{
		Name:        contract.ToolTodoWrite,
		Description: todoWriteDescription,
		Parameters:  bytes.Clone(todoWriteSchema),
	}}
}
