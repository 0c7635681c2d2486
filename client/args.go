package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"

	"github.com/durabletodos/agenttodos/payloads"
	"github.com/durabletodos/agenttodos/todo"
)

// listSource is where `write` and `signal` take the list from: a JSON file,
// stdin, repeated --todo flags, or --clear.
type listSource struct {
	file  string
	todos []string
	clear bool
}

func (s *listSource) register(fs *pflag.FlagSet) {
	fs.StringVarP(&s.file, "file", "f", "", "read TodoWriteArgs JSON from `FILE` (\"-\": stdin)")
	// A string array, not a slice: content may hold commas.
	fs.StringArrayVarP(&s.todos, "todo", "t", nil, "add the item `STATUS:CONTENT` (repeat, in list order); STATUS is pending (p), in_progress (ip, doing) or completed (c, done); CONTENT is all after the first colon")
	fs.BoolVar(&s.clear, "clear", false, "send an empty list, clearing the plan")
}

// args returns the raw TodoWriteArgs JSON to send. A file or stdin is sent
// byte for byte (surrounding white space aside): the session validates it,
// so an unknown key or a malformed list gets the contract's own message, not
// one invented here. positional is what followed SESSION ("-" reads stdin).
func (s *listSource) args(positional []string, stdin io.Reader, stdinPiped bool) ([]byte, error) {
	file := s.file
	switch {
	case len(positional) > 1:
		return nil, usageErrorf("unexpected argument %q", positional[1])
	case len(positional) == 1 && positional[0] != "-":
		return nil, usageErrorf("unexpected argument %q (a list comes from --file, --todo or \"-\" for stdin)", positional[0])
	case len(positional) == 1 && file != "" && file != "-":
		return nil, usageErrorf("give either --file or \"-\", not both")
	case len(positional) == 1:
		file = "-"
	}
	sources := 0
	for _, given := range []bool{file != "", len(s.todos) > 0, s.clear} {
		if given {
			sources++
		}
	}
	if sources > 1 {
		return nil, usageErrorf("give one of --file/-, --todo or --clear")
	}
	switch {
	case s.clear:
		return []byte(`{"todos":[]}`), nil
	case len(s.todos) > 0:
		return todosFromFlags(s.todos)
	case file == "-":
		return readList("stdin", stdin)
	case file != "":
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return readList(file, f)
	case stdinPiped:
		return readList("stdin", stdin)
	}
	// Nothing given, and stdin is a keyboard.
	return nil, usageErrorf(`no list to send: give --todo STATUS:CONTENT (repeatable), --file FILE, "-" or JSON on stdin, or --clear`)
}

func readList(name string, r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil, fmt.Errorf("%s is empty: expected TodoWriteArgs JSON such as {\"todos\":[{\"content\":\"Run the tests\",\"status\":\"pending\"}]}", name)
	}
	return b, nil
}

// todosFromFlags builds {"todos":[...]} from --todo values, in order.
func todosFromFlags(values []string) ([]byte, error) {
	items := make([]todo.Item, 0, len(values))
	for _, v := range values {
		it, err := parseTodoFlag(v)
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	// Content is sent as typed: "<" stays "<", not "\u003c", so the raw
	// arguments in the session log read like what the person wrote.
	return payloads.Marshal(struct {
		Todos []todo.Item `json:"todos"`
	}{items})
}

// parseTodoFlag reads one --todo value, STATUS:CONTENT. Content is
// everything after the first colon, kept exactly (colons and spaces
// included); an empty one is left for the session to reject.
func parseTodoFlag(v string) (todo.Item, error) {
	status, content, ok := strings.Cut(v, ":")
	if !ok {
		return todo.Item{}, usageErrorf("--todo %q: want STATUS:CONTENT, e.g. --todo \"in_progress:Run the tests\"", v)
	}
	s, ok := statusAliases[strings.ToLower(strings.TrimSpace(status))]
	if !ok {
		return todo.Item{}, usageErrorf("--todo %q: unknown status %q: use pending (p), in_progress (ip, doing) or completed (c, done)", v, status)
	}
	return todo.Item{Content: content, Status: s}, nil
}

// statusAliases maps what a person may type to the contract's value.
var statusAliases = map[string]todo.Status{
	"pending": todo.Pending, "p": todo.Pending,
	"in_progress": todo.InProgress, "in-progress": todo.InProgress, "ip": todo.InProgress, "doing": todo.InProgress,
	"completed": todo.Completed, "c": todo.Completed, "done": todo.Completed,
}

// rawJSON wraps JSON text as a payload the SDK sends untouched. A struct
// would lose unknown keys on the way (the contract must see them), and even
// json.RawMessage is re-encoded by the JSON converter (compacted, "<"
// escaped): a converter.RawValue skips conversion entirely.
func rawJSON(b []byte) converter.RawValue {
	return converter.NewRawValue(&commonpb.Payload{
		Metadata: map[string][]byte{converter.MetadataEncoding: []byte(converter.MetadataEncodingJSON)},
		Data:     b,
	})
}
