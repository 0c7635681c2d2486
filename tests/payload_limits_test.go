package tests

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/todo/todotest"
	"github.com/durabletodos/agenttodos/workflows"
)

// TestWorstCaseListsNeverWedgeTheSession writes the largest valid lists of
// the costliest characters, three at a time and across continue-as-new.
// Three such results used to go out in one workflow task completion, over
// the frontend's 4 MiB message limit, and the session stopped answering.
//
// It is not parallel: its turned-away writes retry with megabyte payloads
// and keep both cores of a CI machine busy for minutes (about 5 under the
// race detector). Beside it, the parallel tests' wall-clock budgets ran out
// (TestHistoryGrowsLinearlyInModelTurns failed CI that way). Run serially,
// it finishes before the parallel tests start.
func TestWorstCaseListsNeverWedgeTheSession(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	id := uniqueID("worst-case-lists")
	h.start(id, workflows.SessionInput{ContinueAsNewAfterEvents: workflows.MinContinueAsNewAfterEvents})
	lists := []string{todotest.Worst('<', "lt"), todotest.Worst('\x01', "ctl"), todotest.Worst('&', "amp")}
	for round := range 3 {
		var wg sync.WaitGroup
		for i, list := range lists {
			wg.Go(func() {
				s := h.on(id)
				// Three such lists are more than history.maxInFlightUpdatePayloads
				// (2 MiB) admits at once: a turned-away one clears the session's
				// state on the server and aborts the others, which retry. They
				// get through, but under the race detector that took minutes.
				s.WriteBudget = 8 * time.Minute
				if _, err := s.Write(fmt.Sprintf("worst-%d-%d", round, i), list); err != nil {
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
		sessiontest.WaitFor(t, 30*time.Second, "", func() bool { return len(h.on(id).RunInputs()) >= runs })
	}
	st := h.on(id).Todos()
	if st.Seq != 9 || len(st.Todos) != 64 || st.Counts.InProgress != 64 {
		t.Fatalf("current list: seq %d, %d items", st.Seq, len(st.Todos))
	}
	// The history is readable a page at a time. It holds the newest
	// snapshots: continue-as-new carries as many as fit in its byte budget.
	var seqs []int64
	for req := (sessionlog.PageRequest{}); ; {
		page := h.on(id).History(req)
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
	inputs := h.on(id).RunInputs()
	if len(inputs) < 4 {
		t.Fatalf("%d runs: the lists must cross continue-as-new", len(inputs))
	}
	for _, in := range inputs[1:] {
		if b, _ := json.Marshal(in); len(b) > 1<<20+64<<10 {
			t.Errorf("a run started from a %d-byte input", len(b))
		}
	}
	h.on(id).AssertNoFailedTasks()
	h.replay(id)
}

// TestLargeRejectedSignalsKeepReadsAndTurnsWorking: two rejected lists of
// 1.5 MB each used to be kept whole in the session log, and the session_log
// query (which the client and the model turns read) then exceeded the 2 MiB
// query result limit.
func TestLargeRejectedSignalsKeepReadsAndTurnsWorking(t *testing.T) {
	t.Parallel()
	cs := stepModel(t, 0)
	h := newHarness(t, harnessOptions{models: chatConfig(cs, "test-key")})
	id := uniqueID("large-rejections")
	h.start(id, workflows.SessionInput{})
	if _, err := h.on(id).Write("", todotest.OneItem("keep me")); err != nil {
		t.Fatal(err)
	}
	big := []string{todotest.Huge(600, 2500), strings.Replace(todotest.Huge(600, 2500), "item 0000", "item ZZZZ", 1)}
	for _, list := range big {
		h.on(id).Signal(contract.SignalTodoWrite, json.RawMessage(list))
	}
	var rejected []sessionlog.TodoRejectedData
	sessiontest.WaitFor(t, 30*time.Second, "", func() bool {
		rejected = rejected[:0]
		for _, e := range h.on(id).Log() {
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
	if st := h.on(id).Todos(); st.Todos[0].Content != "keep me" {
		t.Fatalf("the last good list is gone: %+v", st)
	}
	if out, errOut, code := h.runClient("log", id); code != 0 || !strings.Contains(out, "at most 500 items") {
		t.Fatalf("client log: exit %d\n%s\n%s", code, out, errOut)
	}
	if answer, err := h.on(id).Prompt("", "still there?"); err != nil || answer != "done: still there?" {
		t.Fatalf("model turn after the rejections: %q, %v", answer, err)
	}
}
