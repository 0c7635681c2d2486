package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/durabletodos/agenttodos/payloads"
	"github.com/durabletodos/agenttodos/todo"
)

// The --output formats, named as the stock temporal CLI names them.
const (
	formatText  = "text"  // for people: checklists, progress bars, live views
	formatJSON  = "json"  // one JSON document: a result, or a whole list as one array
	formatJSONL = "jsonl" // one JSON value per line: each item of a list
)

// printer is where every command's result goes, so that --output means the
// same thing for all of them.
type printer struct {
	w      io.Writer
	format string
}

func (p printer) text() bool { return p.format == formatText }

// value writes v as JSON on one line. JSON a session returned
// (json.RawMessage) goes out byte for byte, not re-encoded by this client.
func (p printer) value(v any) error {
	b, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if b, err = payloads.Marshal(v); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(p.w, "%s\n", b)
	return err
}

// result prints one result: text for a person, v for a program.
func (p printer) result(text string, v any) error {
	if p.text() {
		_, err := io.WriteString(p.w, text)
		return err
	}
	return p.value(v)
}

// receipt is what a command prints for a program: the session it acted on
// and what came of it.
type receipt struct {
	Session         string      `json:"session"`
	Signal          string      `json:"signal,omitempty"`
	CancelRequested bool        `json:"cancelRequested,omitempty"`
	Answer          string      `json:"answer,omitempty"`
	Failure         string      `json:"failure,omitempty"` // why the agent failed
	Plan            *todo.State `json:"plan,omitempty"`
}

// printList prints a list: each item's text one after another, one JSON
// array, or one JSON value per line.
func printList[T any](p printer, items []T, text func(T) string) error {
	if p.format == formatJSON {
		return p.value(items)
	}
	for _, it := range items {
		if err := p.result(text(it), it); err != nil {
			return err
		}
	}
	return nil
}

// streaming is the printer for a watch, which never ends and so cannot be
// one JSON document: json prints each change as a line, as jsonl does.
func (p printer) streaming() printer {
	if p.format == formatJSON {
		p.format = formatJSONL
	}
	return p
}
