package tests

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/temporaltest"

	"github.com/durabletodos/agenttodos/todo/todotest"
	"github.com/durabletodos/agenttodos/workflows"
)

// TestWriteOnlySessionContinuesAsNewWithABoundedCarry writes enough to cross
// continue-as-new many times: the session keeps every write's seq, keeps
// answering, and carries the snapshot tail rather than every write it ever
// logged (an unbounded carry-over eventually exceeds the payload limit and
// wedges the session).
func TestWriteOnlySessionContinuesAsNewWithABoundedCarry(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	const id = "write-only-continue-as-new"
	h.start(id, workflows.SessionInput{ContinueAsNewAfterEvents: 60})
	const writes = 120
	padding := strings.Repeat("x", 300)
	for i := 1; i <= writes; i++ {
		res, err := h.on(id).Write(fmt.Sprint("w", i), fmt.Sprintf(`{"todos":[{"content":"step %d %s","status":"in_progress"}]}`, i, padding))
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		if res.Seq != int64(i) {
			t.Fatalf("write %d got seq %d", i, res.Seq)
		}
	}
	st := h.on(id).Todos()
	if st.Seq != writes || !strings.HasPrefix(st.Todos[0].Content, fmt.Sprint("step ", writes, " ")) {
		t.Fatalf("current %d %q", st.Seq, st.Todos[0].Content[:20])
	}
	if hist := h.on(id).History(); hist[len(hist)-1].Seq != writes {
		t.Fatalf("history ends at %d", hist[len(hist)-1].Seq)
	}

	started := h.on(id).FetchHistory("").GetEvents()[0].GetWorkflowExecutionStartedEventAttributes()
	if started.GetContinuedExecutionRunId() == "" {
		t.Fatal("the session never continued as new")
	}
	var in workflows.SessionInput
	if err := json.Unmarshal(started.GetInput().GetPayloads()[0].GetData(), &in); err != nil {
		t.Fatal(err)
	}
	if in.Carry == nil || len(in.Carry.Log) != 0 {
		t.Fatalf("a write-only session carried %d log events into its next run", len(in.Carry.Log))
	}
	if in.Carry.Runs < 3 {
		t.Fatalf("crossed continue-as-new %d times, want several", in.Carry.Runs)
	}
	h.replay(id)
}

// TestContinueAsNewOnlyAfterProgress runs a session on a server that
// suggests continue-as-new on every workflow task. A run that has recorded
// nothing never hands over (it would continue as new forever, doing nothing);
// each write then moves the session on by at most one run.
func TestContinueAsNewOnlyAfterProgress(t *testing.T) {
	t.Parallel()
	suggestAlways := dynamicconfig.StaticClient{dynamicconfig.HistoryCountSuggestContinueAsNew.Key(): 1}
	cl := newCluster(t, suggestAlways, temporaltest.WithT(t))
	h := newHarness(t, harnessOptions{client: cl.client})
	id := uniqueID("suggested-continue-as-new")
	h.start(id, workflows.SessionInput{})
	time.Sleep(2 * time.Second)
	if runs := len(h.on(id).RunInputs()); runs != 1 {
		t.Fatalf("an idle session continued as new %d times", runs-1)
	}
	for i := 1; i <= 3; i++ {
		res, err := h.on(id).Write("", todotest.OneItem(fmt.Sprint("step ", i)))
		if err != nil || res.Seq != int64(i) {
			t.Fatalf("write %d: seq %d, %v", i, res.Seq, err)
		}
	}
	time.Sleep(time.Second)
	if runs := len(h.on(id).RunInputs()); runs < 2 || runs > 4 {
		t.Fatalf("3 writes made %d runs, want 2 to 4", runs)
	}
	if st := h.on(id).Todos(); st.Seq != 3 {
		t.Fatalf("current seq %d", st.Seq)
	}
}
