package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.temporal.io/sdk/converter"

	"github.com/durabletodos/agenttodos/todo"
)

func TestParseTodoFlagStatusesAndAliases(t *testing.T) {
	cases := map[string]todo.Status{
		"pending":     todo.Pending,
		"p":           todo.Pending,
		"in_progress": todo.InProgress,
		"in-progress": todo.InProgress,
		"ip":          todo.InProgress,
		"doing":       todo.InProgress,
		"completed":   todo.Completed,
		"c":           todo.Completed,
		"done":        todo.Completed,
		"DONE":        todo.Completed,
		" ip ":        todo.InProgress,
	}
	for status, want := range cases {
		it, err := parseTodoFlag(status + ":Run the tests")
		if err != nil {
			t.Fatalf("%q: %v", status, err)
		}
		if it.Status != want || it.Content != "Run the tests" {
			t.Errorf("%q: got %+v, want status %q", status, it, want)
		}
	}
}

func TestParseTodoFlagContentIsEverythingAfterTheFirstColon(t *testing.T) {
	it, err := parseTodoFlag("c:Deploy: step 2: go  ")
	if err != nil {
		t.Fatal(err)
	}
	if it != (todo.Item{Content: "Deploy: step 2: go  ", Status: todo.Completed}) {
		t.Fatalf("got %+v", it)
	}
	// An empty content is the session's to reject, with the contract message.
	if it, err := parseTodoFlag("p:"); err != nil || it.Content != "" {
		t.Fatalf("got %+v, %v", it, err)
	}
}

func TestParseTodoFlagRejectsBadInput(t *testing.T) {
	for _, v := range []string{"Run the tests", "todo:Run the tests", ":Run", "finished:x"} {
		_, err := parseTodoFlag(v)
		var ue *usageError
		if !errors.As(err, &ue) {
			t.Errorf("%q: got %v, want a usage error", v, err)
		}
	}
}

func TestTodoFlagsBuildTodoWriteArgs(t *testing.T) {
	src := listSource{todos: []string{"ip:Run <the> tests", "p:Fix \"flaky\" test", "done:Write docs"}}
	raw, err := src.args(nil, strings.NewReader(""), false)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"todos":[{"content":"Run <the> tests","status":"in_progress"},{"content":"Fix \"flaky\" test","status":"pending"},{"content":"Write docs","status":"completed"}]}`
	if string(raw) != want {
		t.Fatalf("got  %s\nwant %s", raw, want)
	}
}

func TestListSources(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "list.json")
	// Unknown keys and odd spacing must reach the session untouched.
	body := `{ "todos": [ {"content":"a","status":"pending","priority":"high"} ], "extra": 1 }`
	if err := os.WriteFile(file, []byte("\n"+body+"\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdin := `{"todos":[{"content":"from stdin","status":"completed"}]}`
	cases := []struct {
		name       string
		src        listSource
		positional []string
		piped      bool
		want       string
	}{
		{"file", listSource{file: file}, nil, false, body},
		{"file wins over a piped stdin", listSource{file: file}, nil, true, body},
		{"--file -", listSource{file: "-"}, nil, false, stdin},
		{"dash argument", listSource{}, []string{"-"}, false, stdin},
		{"piped stdin, nothing else", listSource{}, nil, true, stdin},
		{"--todo wins over a piped stdin", listSource{todos: []string{"p:x"}}, nil, true, `{"todos":[{"content":"x","status":"pending"}]}`},
		{"clear", listSource{clear: true}, nil, false, `{"todos":[]}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := tc.src.args(tc.positional, strings.NewReader(stdin+"\n"), tc.piped)
			if err != nil {
				t.Fatal(err)
			}
			if string(raw) != tc.want {
				t.Fatalf("got %s, want %s", raw, tc.want)
			}
		})
	}
}

func TestListSourceErrors(t *testing.T) {
	cases := []struct {
		name       string
		src        listSource
		positional []string
		stdin      string
		piped      bool
		want       string
	}{
		{"nothing and a keyboard", listSource{}, nil, "", false, "no list to send"},
		{"two sources", listSource{file: "x.json", todos: []string{"p:x"}}, nil, "", false, "give one of"},
		{"clear and todos", listSource{clear: true, todos: []string{"p:x"}}, nil, "", false, "give one of"},
		{"dash and file", listSource{file: "x.json"}, []string{"-"}, "", false, "not both"},
		{"stray argument", listSource{}, []string{"list.json"}, "", false, `unexpected argument "list.json"`},
		{"empty stdin", listSource{}, []string{"-"}, "  \n", false, "stdin is empty"},
		{"missing file", listSource{file: "/nonexistent/list.json"}, nil, "", false, "no such file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.src.args(tc.positional, strings.NewReader(tc.stdin), tc.piped)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// The arguments must arrive as exactly the bytes given: a struct would drop
// unknown keys, and the JSON converter re-encodes even a json.RawMessage.
func TestRawJSONPayloadIsSentVerbatim(t *testing.T) {
	raw := []byte(`{"todos":[{"content":"a <b>","status":"pending"}],  "unknown":true}`)
	payloads, err := converter.GetDefaultDataConverter().ToPayloads(rawJSON(raw))
	if err != nil {
		t.Fatal(err)
	}
	p := payloads.GetPayloads()[0]
	if string(p.GetData()) != string(raw) {
		t.Fatalf("data %s, want %s", p.GetData(), raw)
	}
	if enc := string(p.GetMetadata()[converter.MetadataEncoding]); enc != converter.MetadataEncodingJSON {
		t.Fatalf("encoding %q", enc)
	}

	// Why not json.RawMessage: the converter compacts and escapes it.
	viaRawMessage, err := converter.GetDefaultDataConverter().ToPayload(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	if string(viaRawMessage.GetData()) == string(raw) {
		t.Fatalf("json.RawMessage now passes through untouched; rawJSON could use it")
	}
}
