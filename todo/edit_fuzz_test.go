package todo

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzParseEdit: whatever ParseEdit accepts, the session's frozen decoder
// (encoding/json, as workflows.decodeAcceptedEdit reads an accepted edit)
// reads the same seq, note and list, and the arguments it hands the
// TodoWrite activity pass Parse with that same list.
func FuzzParseEdit(f *testing.F) {
	for _, seed := range []string{
		`{"todos":[{"content":"A","status":"pending"}],"expectedSeq":3,"note":"why"}`,
		`{"note":"","expectedSeq":0,"todos":[]}`,
		`{"todos":[],"expectedSeq":1e0}`,
		`{"todos":[{"content":"\u003c","status":"completed"}],"expectedSeq":9007199254740993}`,
		`{"todos":[],"expectedSeq":1,"note":"\ud800"}`,
		`{"todos":[],"expectedSeq":-0}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		e, err := ParseEdit(raw, Limits{})
		if err != nil {
			return
		}
		var frozen struct {
			Todos       []Item `json:"todos"`
			ExpectedSeq int64  `json:"expectedSeq"`
			Note        string `json:"note"`
		}
		if err := json.Unmarshal(raw, &frozen); err != nil {
			t.Fatalf("accepted %q, which encoding/json rejects: %v", raw, err)
		}
		if frozen.ExpectedSeq != e.ExpectedSeq || frozen.Note != e.Note {
			t.Fatalf("%q: ParseEdit read seq %d note %q, encoding/json %d %q", raw, e.ExpectedSeq, e.Note, frozen.ExpectedSeq, frozen.Note)
		}
		items, err := Parse(e.Arguments, Limits{})
		if err != nil || !reflect.DeepEqual(items, e.Todos) || (len(items) > 0 && !reflect.DeepEqual(items, frozen.Todos)) {
			t.Fatalf("%q: arguments %q parse to %v (%v); edit %v; frozen %v", raw, e.Arguments, items, err, e.Todos, frozen.Todos)
		}
	})
}
