package todo

import (
	"strings"
	"testing"
)

func TestParseEdit(t *testing.T) {
	e, err := ParseEdit([]byte(`{"note":"why","todos":[{"content":"A","status":"pending"}],"expectedSeq":12}`), Limits{})
	if err != nil || e.ExpectedSeq != 12 || e.Note != "why" || len(e.Todos) != 1 || string(e.Arguments) != `{"todos":[{"content":"A","status":"pending"}]}` {
		t.Fatalf("%+v %v", e, err)
	}
	for raw, want := range map[string]string{
		`nope`:                                                                   "invalid todos: `todos` must be an array",
		`{"expectedSeq":1,"expectedSeq":2}`:                                      "invalid todos: `todos` must be an array",
		`{"todos":[],"expectedSeq":1} {}`:                                        "invalid todos: `todos` must be an array",
		`{"todos":[],"expectedSeq":0}A`:                                          "invalid todos: `todos` must be an array", // found by FuzzParseEdit
		`{"todos":[{}],"expectedSeq":1}`:                                         "invalid todo: `content` must be a non-empty string",
		`{"todos":[],"b":1,"a":2,"expectedSeq":1}`:                               `invalid todos: unknown key "a"`,
		`{"todos":[],"expectedSeq":"1"}`:                                         "invalid edit: `expectedSeq` must be a non-negative integer",
		`{"todos":[],"expectedSeq":1e1}`:                                         "invalid edit: `expectedSeq` must be a non-negative integer",
		`{"todos":[],"expectedSeq":99999999999999999999}`:                        "invalid edit: `expectedSeq` must be a non-negative integer",
		`{"todos":[],"expectedSeq":0,"note":null}`:                               "invalid edit: `note` must be a string of at most 1024 bytes",
		`{"todos":[],"expectedSeq":0,"note":"` + strings.Repeat("é", 513) + `"}`: "invalid edit: `note` must be a string of at most 1024 bytes",
	} {
		if _, err := ParseEdit([]byte(raw), Limits{}); err == nil || ErrorMessage(err) != want {
			t.Errorf("%s: got %v, want %q", raw, err, want)
		}
	}
	if e, err := ParseEdit([]byte(`{"todos":[],"expectedSeq":0,"note":"`+strings.Repeat("é", 512)+`"}`), Limits{}); err != nil || len(e.Note) != 1024 {
		t.Fatalf("a 1024-byte note: %v", err)
	}
}

func TestDescribeWriters(t *testing.T) {
	got := DescribeWriters([]Source{
		{Kind: SourceEdit, By: "alice", Note: "why \"not\""},
		{Kind: SourceUpdate},
		{Kind: SourceEdit, By: "alice", Note: "why \"not\""},
		{Kind: SourceSignal},
	})
	if want := `alice ("why \"not\""), an unidentified writer`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	if w := CleanWriter(" bob\n\x00the builder " + strings.Repeat("x", 200)); len(w) != 128 || !strings.HasPrefix(w, "bob  the builder") {
		t.Fatalf("cleaned writer %q", w)
	}
}
