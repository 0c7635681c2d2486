package tests

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"go.temporal.io/api/enums/v1"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/workflows"
)

// worstList is the largest valid list (64 items of 4,096 content bytes:
// 262,144 bytes, the limit of rules 7 and 10) made of one character, which
// for < and & cost six bytes each under Temporal's default JSON encoding,
// and for control characters cost six bytes under any JSON encoding.
func worstList(char rune, tag string) string {
	const items, itemBytes = 64, 4096
	var b strings.Builder
	b.WriteString(`{"todos":[`)
	for i := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		prefix := fmt.Sprintf("%s %02d ", tag, i)
		content, _ := json.Marshal(prefix + strings.Repeat(string(char), itemBytes-len(prefix)))
		fmt.Fprintf(&b, `{"content":%s,"status":"in_progress"}`, content)
	}
	b.WriteString(`]}`)
	return b.String()
}

// TestWorstCaseListsNeverWedgeTheSession writes the largest valid lists of
// the costliest characters, three at a time and across continue-as-new.
// Three such results used to go out in one workflow task completion, over
// the frontend's 4 MiB message limit, and the session stopped answering.
func TestWorstCaseListsNeverWedgeTheSession(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	id := uniqueID("worst-case-lists")
	h.start(id, workflows.SessionInput{ContinueAsNewAfterEvents: workflows.MinContinueAsNewAfterEvents})
	lists := []string{worstList('<', "lt"), worstList('\x01', "ctl"), worstList('&', "amp")}
	for round := range 3 {
		var wg sync.WaitGroup
		for i, list := range lists {
			wg.Go(func() {
				if _, err := h.write(id, fmt.Sprintf("worst-%d-%d", round, i), list); err != nil {
					t.Errorf("round %d list %d: %v", round, i, err)
				}
			})
		}
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		// Each round leaves the run past its limit: the next round starts
		// once the session has carried the lists into a new run.
		runs := round + 2
		waitFor(t, func() bool { return len(h.runInputs(id)) >= runs })
	}
	st := h.todos(id)
	if st.Seq != 9 || len(st.Todos) != 64 || st.Counts.InProgress != 64 {
		t.Fatalf("current list: seq %d, %d items", st.Seq, len(st.Todos))
	}
	// The history is readable a page at a time. It holds the newest
	// snapshots: continue-as-new carries as many as fit in its byte budget.
	var seqs []int64
	for req := (sessionlog.PageRequest{}); ; {
		page := h.history(id, req)
		if len(page) == 0 {
			break
		}
		for _, sn := range page {
			seqs = append(seqs, sn.Seq)
		}
		req.AfterSeq = page[len(page)-1].Seq
	}
	// (Paging may span a continue-as-new: the carry keeps the newest
	// snapshots, so a page from the new run can start past a gap.)
	for i := 1; i < len(seqs); i++ {
		if seqs[i] <= seqs[i-1] {
			t.Fatalf("todo_history seqs %v", seqs)
		}
	}
	if len(seqs) < 2 || seqs[len(seqs)-1] != 9 {
		t.Fatalf("todo_history holds seqs %v, want the newest ones up to 9", seqs)
	}
	inputs := h.runInputs(id)
	if len(inputs) < 4 {
		t.Fatalf("%d runs: the lists must cross continue-as-new", len(inputs))
	}
	for _, in := range inputs[1:] {
		if b, _ := json.Marshal(in); len(b) > 1<<20+64<<10 {
			t.Errorf("a run started from a %d-byte input", len(b))
		}
	}
	h.assertNoFailedTasks(id)
	h.replay(id)
}

// assertNoFailedTasks checks every run of a session for failed workflow
// tasks.
func (h *harness) assertNoFailedTasks(id string) {
	h.t.Helper()
	runID := ""
	for {
		events := h.fetchHistory(id, runID).GetEvents()
		for _, e := range events {
			if e.GetEventType() == enums.EVENT_TYPE_WORKFLOW_TASK_FAILED {
				h.t.Errorf("run %s: workflow task failed: %v", runID, e.GetWorkflowTaskFailedEventAttributes().GetFailure().GetMessage())
			}
		}
		runID = events[0].GetWorkflowExecutionStartedEventAttributes().GetContinuedExecutionRunId()
		if runID == "" {
			return
		}
	}
}

// TestLargeRejectedSignalsKeepReadsAndTurnsWorking: two rejected lists of
// 1.5 MB each used to be kept whole in the session log, and the session_log
// query (which the client and the model turns read) then exceeded the 2 MiB
// query result limit.
func TestLargeRejectedSignalsKeepReadsAndTurnsWorking(t *testing.T) {
	t.Parallel()
	cs := stepModel(t, 0)
	h := newHarness(t, harnessOptions{models: cs.config("test-key")})
	id := uniqueID("large-rejections")
	h.start(id, workflows.SessionInput{})
	if _, err := h.write(id, "", oneItemList("keep me")); err != nil {
		t.Fatal(err)
	}
	big := []string{hugeList(600, 2500), strings.Replace(hugeList(600, 2500), "item 0000", "item ZZZZ", 1)}
	for _, list := range big {
		h.signal(id, contract.SignalTodoWrite, json.RawMessage(list))
	}
	var rejected []sessionlog.TodoRejectedData
	waitFor(t, func() bool {
		rejected = rejected[:0]
		for _, e := range h.sessionLog(id) {
			if e.Type == sessionlog.TodoRejected {
				var d sessionlog.TodoRejectedData
				if err := json.Unmarshal(e.Data, &d); err != nil {
					t.Fatal(err)
				}
				rejected = append(rejected, d)
			}
		}
		return len(rejected) == 2
	})
	for i, d := range rejected {
		sum := sha256.Sum256([]byte(big[i]))
		if d.Error != "invalid todos: at most 500 items (got 600)" || d.ArgumentsBytes != len(big[i]) ||
			d.ArgumentsSHA256 != hex.EncodeToString(sum[:]) || !strings.HasPrefix(big[i], d.ArgumentsPrefix) || len(d.ArgumentsPrefix) != 1024 {
			t.Fatalf("rejection %d logged as %+v", i, d)
		}
	}
	if st := h.todos(id); st.Todos[0].Content != "keep me" {
		t.Fatalf("the last good list is gone: %+v", st)
	}
	if out, errOut, code := h.runClient("log", id); code != 0 || !strings.Contains(out, "at most 500 items") {
		t.Fatalf("client log: exit %d\n%s\n%s", code, out, errOut)
	}
	if answer, err := h.prompt(id, "still there?"); err != nil || answer != "done: still there?" {
		t.Fatalf("model turn after the rejections: %q, %v", answer, err)
	}
}
