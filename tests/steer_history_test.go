package tests

import (
	"encoding/json"
	"testing"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/workflows"
)

func changeJSON(c *todo.Change) string {
	if c == nil {
		return "none"
	}
	b, _ := json.Marshal(c)
	return string(b)
}

// TestHistoryShowsChangesAndDiffs: each todo_history snapshot carries what
// it changed, and todo_diff tells the change between any two seqs with the
// writes in between.
func TestHistoryShowsChangesAndDiffs(t *testing.T) {
	t.Parallel()
	const id = "steer-history"
	h := newHarness(t, harnessOptions{})
	h.start(id, workflows.SessionInput{})
	s := h.on(id)
	s.As = "carol"
	s.MustWrite("", writeArgs(plan("in_progress:A", "pending:B", "pending:C")))
	r, err := s.Edit("", editArgs(plan("completed:A", "pending:X", "pending:C", "pending:B"), 1, "X first"))
	if err != nil {
		t.Fatal(err)
	}
	s.MustWrite("", writeArgs(plan("completed:A", "in_progress:X2", "pending:C", "pending:B")))

	hist := s.History()
	want := []string{
		`{"added":[{"content":"A","status":"in_progress","index":0},{"content":"B","status":"pending","index":1},{"content":"C","status":"pending","index":2}]}`,
		`{"added":[{"content":"X","status":"pending","index":1}],"status":[{"content":"A","from":"in_progress","to":"completed"}],"moved":[{"content":"B","from":1,"to":3}]}`,
		`{"renamed":[{"from":"X","to":"X2","index":1}],"status":[{"content":"X2","from":"pending","to":"in_progress"}]}`,
	}
	if len(hist) != len(want) {
		t.Fatalf("history %+v", hist)
	}
	for i := range want {
		if got := changeJSON(hist[i].Change); got != want[i] {
			t.Errorf("snapshot %d change:\n got %s\nwant %s", i, got, want[i])
		}
	}

	var d workflows.DiffResult
	s.Query(contract.QueryTodoDiff, &d, workflows.DiffRequest{FromSeq: 1})
	if got := changeJSON(&d.Change); d.FromSeq != 1 || d.ToSeq != 3 || len(d.Writes) != 2 || d.Writes[0].Seq != r.Seq || d.Writes[0].Source.Note != "X first" ||
		got != `{"added":[{"content":"X2","status":"in_progress","index":1}],"status":[{"content":"A","from":"in_progress","to":"completed"}],"moved":[{"content":"B","from":1,"to":3}]}` {
		t.Fatalf("diff 1..now: %+v %s", d, got)
	}
	// Any seq names the plan as it was then; 0 is before the first write.
	var d2 workflows.DiffResult
	s.Query(contract.QueryTodoDiff, &d2, workflows.DiffRequest{FromSeq: 2, ToSeq: 0})
	if got := changeJSON(&d2.Change); len(d2.Writes) != 1 || got != `{"renamed":[{"from":"X","to":"X2","index":1}],"status":[{"content":"X2","from":"pending","to":"in_progress"}]}` {
		t.Fatalf("diff 2..now: %+v", d2)
	}
	var back workflows.DiffResult
	s.Query(contract.QueryTodoDiff, &back, workflows.DiffRequest{FromSeq: 3, ToSeq: 1})
	if got := changeJSON(&back.Change); got != `{"removed":[{"content":"X2","status":"in_progress","index":1}],"status":[{"content":"A","from":"completed","to":"in_progress"}],"moved":[{"content":"B","from":3,"to":1}]}` {
		t.Fatalf("diff backwards: %s", got)
	}
	if _, err := s.C.QueryWorkflow(t.Context(), id, "", contract.QueryTodoDiff, workflows.DiffRequest{FromSeq: 99}); err == nil {
		t.Fatal("a diff from a seq the session never reached answered")
	}
	h.replay(id)
}

// TestRetriedEditAcrossContinueAsNewIsAnsweredOnce: an edit retried with its
// update ID after the session continued as new (and its seq moved on) gets
// its first answer, not a conflict and not a second application.
func TestRetriedEditAcrossContinueAsNewIsAnsweredOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	id := uniqueID("steer-edit-across-continue-as-new")
	h.start(id, workflows.SessionInput{ContinueAsNewAfterEvents: 30})
	s := h.on(id)
	s.As = "dave"
	args := editArgs(plan("pending:the edit a retry must not apply twice"), 0, "retried")
	first, err := s.Edit("retried-edit", args)
	if err != nil {
		t.Fatal(err)
	}
	run := s.RunID()
	for i := 0; s.RunID() == run; i++ {
		s.MustWrite("", writeArgs(plan("pending:newer "+string(rune('a'+i%26))+string(rune('0'+i/26)))))
	}
	again, err := s.Edit("retried-edit", args)
	if err != nil || again.Seq != first.Seq || !samePlan(again.Todos, first.Todos) {
		t.Fatalf("retried edit: %+v %v; first %+v", again, err, first)
	}
	hist := s.AllHistory()
	if n := sourceCounts(hist)["retried-edit"]; n != 1 {
		t.Fatalf("retried edit recorded %d times", n)
	}
	// The oldest snapshot a continued run keeps has lost its predecessor;
	// the others still show their change.
	if hist[0].Change != nil || hist[len(hist)-1].Change == nil {
		t.Fatalf("changes after continue-as-new: first %s, last %s", changeJSON(hist[0].Change), changeJSON(hist[len(hist)-1].Change))
	}
	h.replay(id)
}
