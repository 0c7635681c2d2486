package tests

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/workflows"
)

// plan is a todo_write/todo_edit list written the short way: "status:content".
func plan(items ...string) []todo.Item {
	out := make([]todo.Item, len(items))
	for i, s := range items {
		status, content, _ := strings.Cut(s, ":")
		out[i] = todo.Item{Content: content, Status: todo.Status(status)}
	}
	return out
}

func writeArgs(items []todo.Item) string {
	b, _ := json.Marshal(map[string]any{"todos": items})
	return string(b)
}

func editArgs(items []todo.Item, expected int64, note string) string {
	b, _ := json.Marshal(map[string]any{"todos": items, "expectedSeq": expected, "note": note})
	return string(b)
}

func samePlan(a, b []todo.Item) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestTodoEditIsConflictChecked: an edit applies only at the seq it names,
// is validated by todo_write's rules and messages (plus its own), records
// who made it and why, and a rejected one writes nothing.
func TestTodoEditIsConflictChecked(t *testing.T) {
	t.Parallel()
	const id = "steer-edit"
	h := newHarness(t, harnessOptions{})
	h.start(id, workflows.SessionInput{})
	alice := h.on(id)
	alice.As = "alice"

	first := plan("in_progress:Read the code", "pending:Write the fix")
	res, err := alice.Edit("edit-1", editArgs(first, 0, "first plan"))
	if err != nil || res.Seq != 1 || !samePlan(res.Todos, first) || res.Message != "Updated todo list: 1 pending, 1 in progress, 0 completed." {
		t.Fatalf("first edit: %+v %v", res, err)
	}
	// Sent again with its update ID, it is the same write.
	if again, err := alice.Edit("edit-1", editArgs(first, 0, "first plan")); err != nil || again.Seq != 1 {
		t.Fatalf("retried edit: %+v %v", again, err)
	}

	rejections := []struct{ args, want string }{
		{editArgs(plan("pending:x"), 0, ""), "todo_edit conflict: expectedSeq is 0 but the plan is at seq 1"},
		{editArgs(plan("pending:x"), 7, ""), "todo_edit conflict: expectedSeq is 7 but the plan is at seq 1"},
		{editArgs(plan("pending:x", "pending:x"), 1, ""), `invalid todos: duplicate content "x"`},
		{`{"todos":[{"content":"x","status":"pending"}],"expectedSeq":1,"extra":true}`, `invalid todos: unknown key "extra"`},
		{`{"expectedSeq":1}`, "invalid todos: `todos` must be an array"},
		{`[1]`, "invalid todos: `todos` must be an array"},
		{`{"todos":[]}`, "invalid edit: `expectedSeq` must be a non-negative integer"},
		{`{"todos":[],"expectedSeq":1.5}`, "invalid edit: `expectedSeq` must be a non-negative integer"},
		{`{"todos":[],"expectedSeq":-1}`, "invalid edit: `expectedSeq` must be a non-negative integer"},
		{`{"todos":[],"expectedSeq":1,"note":3}`, "invalid edit: `note` must be a string of at most 1024 bytes"},
		{editArgs([]todo.Item{}, 1, strings.Repeat("n", contract.MaxNoteBytes+1)), "invalid edit: `note` must be a string of at most 1024 bytes"},
	}
	for _, r := range rejections {
		_, err := alice.Edit("", r.args)
		if err == nil || todo.ErrorMessage(err) != r.want {
			t.Errorf("edit %s: got %v, want %q", r.args, err, r.want)
		}
	}
	if st := alice.Todos(); st.Seq != 1 || !samePlan(st.Todos, first) {
		t.Fatalf("a rejected edit changed the plan: %+v", st)
	}

	second := plan("completed:Read the code", "in_progress:Write the fix")
	res, err = alice.Edit("", editArgs(second, 1, "read it"))
	if err != nil || res.Seq != 2 {
		t.Fatalf("second edit: %+v %v", res, err)
	}
	hist := alice.History()
	if len(hist) != 2 {
		t.Fatalf("history: %+v", hist)
	}
	if src := hist[1].Source; src.Kind != todo.SourceEdit || src.By != "alice" || src.Note != "read it" || src.ID == "" {
		t.Fatalf("second snapshot's source: %+v", src)
	}
	h.replay(id)
}

// TestTwoEditorsOfOneSeqOneWins: editors who saw the same seq race; in every
// round exactly one edit applies and the other gets the conflict message,
// whether its validator or its turn found the plan moved on.
func TestTwoEditorsOfOneSeqOneWins(t *testing.T) {
	t.Parallel()
	const id = "steer-race"
	h := newHarness(t, harnessOptions{})
	h.start(id, workflows.SessionInput{})
	for round := range 8 {
		seq := h.on(id).Todos().Seq
		var wg sync.WaitGroup
		results := make([]error, 2)
		for k, who := range []string{"alice", "bob"} {
			wg.Go(func() {
				s := h.on(id)
				s.As = who
				_, results[k] = s.Edit("", editArgs(plan("pending:"+who+" round "+fmt.Sprint(round)), seq, ""))
			})
		}
		wg.Wait()
		won, lost := 0, 0
		for _, err := range results {
			switch {
			case err == nil:
				won++
			case todo.ErrorMessage(err) == fmt.Sprintf("todo_edit conflict: expectedSeq is %d but the plan is at seq %d", seq, seq+1):
				lost++
			default:
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if won != 1 || lost != 1 {
			t.Fatalf("round %d: %d won, %d lost", round, won, lost)
		}
	}
	if hist := h.on(id).History(); len(hist) != 8 {
		t.Fatalf("%d snapshots, want 8", len(hist))
	}
	h.replay(id)
}

// TestWritersAreRecorded: every snapshot and todo/write event says who wrote
// it; a todo_write without the header shows as unidentified.
func TestWritersAreRecorded(t *testing.T) {
	t.Parallel()
	const id = "steer-writers"
	h := newHarness(t, harnessOptions{})
	h.start(id, workflows.SessionInput{})
	bob := h.on(id)
	bob.As = "bob\nthe builder"
	bob.MustWrite("", writeArgs(plan("pending:Build it")))
	h.on(id).MustWrite("", writeArgs(plan("completed:Build it")))

	hist := h.on(id).History()
	if len(hist) != 2 || hist[0].Source.By != "bob the builder" || hist[1].Source.By != "" {
		t.Fatalf("history sources: %+v", hist)
	}
	if w := hist[1].Source.Writer(); w != "an unidentified writer" {
		t.Fatalf("unidentified writer shows as %q", w)
	}
	var writes []sessionlog.TodoWriteData
	for _, e := range h.on(id).Log() {
		if e.Type == sessionlog.TodoWrite {
			var d sessionlog.TodoWriteData
			if err := json.Unmarshal(e.Data, &d); err != nil {
				t.Fatal(err)
			}
			writes = append(writes, d)
		}
	}
	if len(writes) != 2 || writes[0].Source.By != "bob the builder" || writes[1].Source.By != "" {
		t.Fatalf("todo/write events: %+v", writes)
	}
	h.replay(id)
}
